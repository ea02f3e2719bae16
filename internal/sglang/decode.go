package sglang

import (
	"bytes"
	"fmt"
	"strconv"

	"github.com/dsight/dsight/internal/logmetric"
)

// Decode implements logmetric.Generator. The first '[' on the line that
// starts a valid prefix followed by a batch or ReqTimeStats message decides
// the result.
func (Generator) Decode(line []byte) (logmetric.Observation, bool, error) {
	for off := 0; off < len(line); {
		i := bytes.IndexByte(line[off:], '[')
		if i < 0 {
			break
		}
		at := off + i
		off = at + 1
		p, n := parsePrefix(line[at:])
		if n == 0 {
			if why, rest := badRankPrefix(line[at:]); why != "" && ownMessage(trimColourReset(rest)) {
				return logmetric.Observation{Dropped: why}, false, nil
			}
			continue
		}
		msg := trimColourReset(line[at+n:])
		var (
			obs        logmetric.Observation
			recognised bool
		)
		request := hasPrefix(msg, "ReqTimeStats(")
		if request {
			obs, recognised = decodeRequest(msg[len("ReqTimeStats("):])
			if !recognised && !bytes.Contains(msg, []byte("): ")) {
				return logmetric.Observation{Dropped: `ReqTimeStats record is truncated (no "): " before its fields)`}, false, nil
			}
		} else if phase, fields, ok := batchMessage(msg); ok {
			obs, recognised = decodeBatch(phase, fields)
		} else {
			continue
		}
		if recognised && len(obs.Values) == 0 && obs.Dropped != "" {
			return logmetric.Observation{Dropped: obs.Dropped}, false, nil
		}
		if !recognised || len(obs.Values) == 0 {
			return logmetric.Observation{}, false, nil
		}
		// One rule for a bad timestamp in SGLang and TokenSpeed logs: an
		// error naming file:line (ErrInvalidStamp), never a silent drop. A
		// line whose time cannot be read cannot be placed at all, and a
		// malformed stamp on a recognised line means the log is damaged or
		// of a format this reader does not know: the user must look.
		if err := p.stamp.Validate(); err != nil {
			return logmetric.Observation{}, false, err
		}
		p.scope(&obs)
		return obs, true, nil
	}
	return logmetric.Observation{}, false, nil
}

// ownMessage reports whether msg is a message this generator reads.
func ownMessage(msg []byte) bool {
	if hasPrefix(msg, "ReqTimeStats(") {
		return true
	}
	_, _, ok := batchMessage(msg)
	return ok
}

// badRankPrefix explains why b, which starts with a valid "[stamp", is not
// a prefix: a rank named twice, or one with more than maxRankDigits digits.
// It returns "" when b is not such a prefix, or the reason and the text
// after the prefix's "] ".
func badRankPrefix(b []byte) (string, []byte) {
	if len(b) == 0 || b[0] != '[' {
		return "", nil
	}
	_, used := logmetric.ParseStamp(b[1:], '.')
	if used == 0 {
		return "", nil
	}
	end := bytes.Index(b, []byte("] "))
	if end < 0 {
		return "", nil
	}
	var seen uint8
	for _, field := range bytes.Fields(b[1+used : end]) {
		for ni, r := range rankNames {
			if !hasPrefix(field, r.logged) || !allDigits(field[len(r.logged):]) {
				continue
			}
			switch {
			case len(field)-len(r.logged) > maxRankDigits:
				return fmt.Sprintf("rank %s has more than %d digits", field, maxRankDigits), b[end+2:]
			case seen&(1<<ni) != 0:
				return fmt.Sprintf("rank %s is named twice in the prefix", r.logged), b[end+2:]
			}
			seen |= 1 << ni
		}
	}
	return "", nil
}

// rankNames in the upstream prefix order; the label is the lower-case name.
var rankNames = [...]struct{ logged, label string }{
	{"DP", "dp"}, {"PP", "pp"}, {"ATTN_CP", "attn_cp"}, {"MOE_DP", "moe_dp"}, {"TP", "tp"}, {"EP", "ep"},
}

const maxRankDigits = 9 // keeps the index inside int32

type loggedRank struct {
	name   int // index into rankNames
	digits []byte
}

type prefix struct {
	stamp logmetric.Stamp
	ranks [len(rankNames)]loggedRank
	n     int
}

// parsePrefix reads "[stamp( NAMEn)*] " at the start of b and returns the
// number of bytes consumed, 0 when b does not start with a prefix.
func parsePrefix(b []byte) (prefix, int) {
	var p prefix
	if len(b) == 0 || b[0] != '[' {
		return p, 0
	}
	stamp, used := logmetric.ParseStamp(b[1:], '.')
	if used == 0 {
		return p, 0
	}
	p.stamp = stamp
	i := 1 + used
	var seen uint8
	for i < len(b) && b[i] == ' ' {
		name, digits, n := rankAt(b[i+1:])
		if n == 0 {
			break
		}
		if seen&(1<<name) != 0 || p.n == len(p.ranks) {
			return p, 0 // a repeated rank name makes the scope ambiguous
		}
		seen |= 1 << name
		p.ranks[p.n] = loggedRank{name: name, digits: digits}
		p.n++
		i += 1 + n
	}
	if i+1 >= len(b) || b[i] != ']' || b[i+1] != ' ' {
		return p, 0
	}
	return p, i + 2
}

// rankAt reads NAME followed by 1..maxRankDigits digits.
func rankAt(b []byte) (name int, digits []byte, n int) {
	for ni, r := range rankNames {
		if !hasPrefix(b, r.logged) {
			continue
		}
		rest := b[len(r.logged):]
		d := 0
		for d < len(rest) && '0' <= rest[d] && rest[d] <= '9' {
			d++
		}
		if d == 0 || d > maxRankDigits {
			return 0, nil, 0
		}
		return ni, rest[:d], len(r.logged) + d
	}
	return 0, nil, 0
}

// scope moves the prefix's time and ranks onto obs, whose Labels already hold
// the phase.
func (p *prefix) scope(obs *logmetric.Observation) {
	obs.Time = p.stamp
	for _, r := range p.ranks[:p.n] {
		if rankNames[r.name].logged == "DP" {
			idx, _ := strconv.Atoi(string(r.digits))
			obs.Rank = logmetric.Rank{Kind: logmetric.RankKindDP, Index: idx}
			continue
		}
		obs.Labels = append(obs.Labels, logmetric.Label{Key: rankNames[r.name].label, Value: digitString(r.digits)})
	}
}

// smallNumbers interns the rank labels nearly every line carries.
var smallNumbers = func() (s [256]string) {
	for i := range s {
		s[i] = strconv.Itoa(i)
	}
	return s
}()

func digitString(d []byte) string {
	if len(d) <= 3 && (len(d) == 1 || d[0] != '0') {
		if v, _ := strconv.Atoi(string(d)); v < len(smallNumbers) {
			return smallNumbers[v]
		}
	}
	return string(d)
}

var phaseLabels = [...]string{phasePrefill: "prefill", phaseDecode: "decode"}

func phaseLabel(phase phaseMask) logmetric.Label {
	return logmetric.Label{Key: "phase", Value: phaseLabels[phase]}
}

// trimColourReset drops ANSI SGR sequences ("\x1b[0m") that a colouring
// wrapper appends after the message, so they do not spoil the last field.
func trimColourReset(b []byte) []byte {
	for len(b) > 0 && b[len(b)-1] == 'm' {
		esc := bytes.LastIndex(b, []byte("\x1b["))
		if esc < 0 {
			return b
		}
		for _, c := range b[esc+2 : len(b)-1] {
			if (c < '0' || c > '9') && c != ';' {
				return b
			}
		}
		b = b[:esc]
	}
	return b
}

// hasPrefix is bytes.HasPrefix for a string prefix, without converting it.
func hasPrefix(b []byte, prefix string) bool {
	return len(b) >= len(prefix) && string(b[:len(prefix)]) == prefix
}

// Separators, allocated once.
var (
	sepComma     = []byte(", ")
	sepSemicolon = []byte("; ")
	sepColon     = []byte(": ")
	sepPlus      = []byte(" + ")
)

// nextPart splits b at the first sep, returning the part before it and the
// rest after it.
func nextPart(b, sep []byte) (part, rest []byte) {
	if i := bytes.Index(b, sep); i >= 0 {
		return b[:i], b[i+len(sep):]
	}
	return b, nil
}

// nextPartEither splits b at the first of two separators of equal length.
func nextPartEither(b, sep1, sep2 []byte) (part, rest []byte) {
	i, j := bytes.Index(b, sep1), bytes.Index(b, sep2)
	if i < 0 || (j >= 0 && j < i) {
		i = j
	}
	if i < 0 {
		return b, nil
	}
	return b[:i], b[i+len(sep1):]
}
