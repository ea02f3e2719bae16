package agentperf

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/dsight/dsight/internal/jsonscan"
)

// scalar is one recorded identity or text value.
type scalar struct {
	kind jsonscan.Kind // jsonscan.Invalid when absent
	text string        // the string, or a number's literal
}

// recorded reports a non-null value.
func (v scalar) recorded() bool { return v.kind == jsonscan.String || v.kind == jsonscan.Number }

func (v scalar) ptr() *string {
	if !v.recorded() {
		return nil
	}
	s := v.text
	return &s
}

// label renders the value inside a session name.
func (v scalar) label() string {
	if !v.recorded() {
		return "unknown"
	}
	return v.text
}

// number is a recorded number literal; lit is nil when absent or null.
// number is a numeric field as recorded.
type number = jsonscan.NumberField

// boolField is a recorded boolean; set is false when absent or null.
type boolField struct {
	set, value bool
}

func (f boolField) isFalse() bool { return f.set && !f.value }

// record holds the fields of a request-log or phase-analysis row that the
// adapter uses. Literals point into the line buffer until own is called.
type record struct {
	line            int64
	hasMetadata     bool
	phase           number // phase_idx
	requestID       scalar
	xRequestID      scalar
	user            scalar
	conversation    scalar
	conversationIdx scalar
	start, end      number
	ttft            number
	success         boolField
	hasOutput       boolField
	inputTokens     number
	outputTokens    number
	cachedTokens    number
}

// own copies the literals out of the line buffer so the record can outlive it.
func (r *record) own() {
	for _, n := range []*number{&r.phase, &r.start, &r.end, &r.ttft, &r.inputTokens, &r.outputTokens, &r.cachedTokens} {
		if n.Lit != nil {
			n.Lit = append([]byte(nil), n.Lit...)
		}
	}
}

func decodeRecord(s *jsonscan.Scanner, line []byte, r *record) error {
	s.Reset(line)
	if s.Peek() != jsonscan.Object {
		if err := s.Skip(); err != nil {
			return err
		}
		return errors.New("record is not a JSON object")
	}
	err := s.Object(func(key []byte) error {
		var err error
		switch string(key) {
		case "metadata":
			r.hasMetadata = true
		case "phase_idx":
			r.phase, err = s.ReadNumber("phase_idx")
		case "request_id":
			r.requestID, err = readScalar(s, "request_id")
		case "x_request_id":
			r.xRequestID, err = readScalar(s, "x_request_id")
		case "user_id":
			r.user, err = readScalar(s, "user_id")
		case "conversation_id":
			r.conversation, err = readScalar(s, "conversation_id")
		case "conversation_idx":
			r.conversationIdx, err = readScalar(s, "conversation_idx")
		case "start_time":
			r.start, err = s.ReadNumber("start_time")
		case "end_time":
			r.end, err = s.ReadNumber("end_time")
		case "ttft":
			r.ttft, err = s.ReadNumber("ttft")
		case "success":
			r.success, err = readBool(s, "success")
		case "has_output":
			r.hasOutput, err = readBool(s, "has_output")
		case "server_input_tokens":
			r.inputTokens, err = s.ReadNumber("server_input_tokens")
		case "server_output_tokens":
			r.outputTokens, err = s.ReadNumber("server_output_tokens")
		case "server_cached_tokens":
			r.cachedTokens, err = s.ReadNumber("server_cached_tokens")
		}
		return err
	})
	if err != nil {
		return err
	}
	return s.End()
}

// readScalar reads a string, number, boolean or null; identities may be
// any JSON scalar.
func readScalar(s *jsonscan.Scanner, name string) (scalar, error) {
	switch k := s.Peek(); k {
	case jsonscan.Null:
		s.Null()
		return scalar{kind: jsonscan.Null}, nil
	case jsonscan.String:
		v, err := s.Str()
		return scalar{kind: k, text: v}, err
	case jsonscan.Number:
		lit, err := s.Num()
		return scalar{kind: k, text: string(lit)}, err
	case jsonscan.Bool:
		v, err := s.Bool()
		return scalar{kind: k, text: strconv.FormatBool(v)}, err
	case jsonscan.Invalid:
		return scalar{}, s.Skip()
	}
	if err := s.Skip(); err != nil {
		return scalar{}, err
	}
	return scalar{}, fmt.Errorf("%s is not a scalar", name)
}

func readBool(s *jsonscan.Scanner, name string) (boolField, error) {
	switch s.Peek() {
	case jsonscan.Null:
		s.Null()
		return boolField{}, nil
	case jsonscan.Bool:
		v, err := s.Bool()
		return boolField{set: true, value: v}, err
	case jsonscan.Invalid:
		return boolField{}, s.Skip()
	}
	if err := s.Skip(); err != nil {
		return boolField{}, err
	}
	return boolField{}, fmt.Errorf("%s is not a boolean", name)
}

// phaseIndex reads phase_idx, which defaults to 0 when absent.
func phaseIndex(n number) (int64, error) {
	if n.Lit == nil {
		if n.Present {
			return 0, errors.New("phase_idx is null")
		}
		return 0, nil
	}
	v, err := jsonscan.Int(n.Lit)
	if err != nil {
		return 0, fmt.Errorf("phase_idx %s: %w", n.Lit, err)
	}
	return v, nil
}

// identityKey encodes (phase, request_id, user_id, conversation_id,
// conversation_idx) so that equal recorded values give equal keys. Absent
// and null compare equal, as Python's dict.get makes them.
func identityKey(phase int64, r *record) (string, error) {
	b := strconv.AppendInt(make([]byte, 0, 96), phase, 10)
	for _, v := range []scalar{r.requestID, r.user, r.conversation, r.conversationIdx} {
		b = append(b, '|')
		switch v.kind {
		case jsonscan.String:
			b = append(b, 's')
			b = strconv.AppendInt(b, int64(len(v.text)), 10)
			b = append(b, ':')
			b = append(b, v.text...)
		case jsonscan.Number:
			c, err := jsonscan.Canonical([]byte(v.text))
			if err != nil {
				return "", err
			}
			b = append(b, 'd')
			b = append(b, c...)
		case jsonscan.Bool:
			b = append(b, 'b')
			b = append(b, v.text...)
		default:
			b = append(b, 'n')
		}
	}
	return string(b), nil
}

// describeIdentity renders the join identity for error messages.
func describeIdentity(phase int64, r *record) string {
	show := func(v scalar) string {
		switch v.kind {
		case jsonscan.String:
			return strconv.Quote(v.text)
		case jsonscan.Number, jsonscan.Bool:
			return v.text
		}
		return "null"
	}
	return fmt.Sprintf("(phase %d, request_id %s, user_id %s, conversation_id %s, conversation_idx %s)",
		phase, show(r.requestID), show(r.user), show(r.conversation), show(r.conversationIdx))
}
