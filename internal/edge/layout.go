package edge

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Bucket keys. A report's own files live under reports/<id>/; shard
// scripts are named by the hash of their payload and stored once for all
// reports; a short link is one small JSON record.
const (
	ReportsPrefix = "reports/"
	DetailPrefix  = "detail/"
	LinksPrefix   = "links/"
	// StoredSuffix ends every compressed object's key.
	StoredSuffix = ".gz"
)

// Lengths of the ids in a URL. A report id is the first 24 hex digits
// (96 bits) of the SHA-256 of its manifest, which lists the hash of every
// file of the report, so it names the whole content. A link id is 12 hex
// digits of the hash of its record: chat tools keep it intact.
const (
	ReportIDLen = 24
	LinkIDLen   = 12
	ShardIDLen  = 64
	// MaxViewLen bounds a stored #view= fragment (they are ~1,200
	// characters today).
	MaxViewLen = 8192
)

// The patterns are matched by hand rather than with regexp: the worker
// starts a fresh Go instance for every request, and compiling patterns at
// start-up would cost each one.

// ValidReportID reports whether s has the form of a report id.
func ValidReportID(s string) bool { return len(s) == ReportIDLen && lowerHex(s) }

// ValidLinkID reports whether s has the form of a short link id.
func ValidLinkID(s string) bool { return len(s) == LinkIDLen && lowerHex(s) }

// validShardName reports whether s is <sha256>.js.
func validShardName(s string) bool {
	return len(s) == ShardIDLen+3 && s[ShardIDLen:] == ".js" && lowerHex(s[:ShardIDLen])
}

func lowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// validView admits what encodeURIComponent produces after "#view=", so a
// stored fragment can never break out of a Location header.
func validView(s string) bool {
	rest, ok := strings.CutPrefix(s, "#view=")
	if !ok {
		return false
	}
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("%._~!*'()-", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// ReportKey is the key of one of a report's own files (index.html,
// manifest.json).
func ReportKey(reportID, name string) string {
	return ReportsPrefix + reportID + "/" + name + StoredSuffix
}

// ShardKey is the key of the shard script detail/<name> (<sha256>.js).
func ShardKey(name string) string { return DetailPrefix + name + StoredSuffix }

// LinkKey is the key of a short link's record.
func LinkKey(id string) string { return LinksPrefix + id + ".json" }

// Link is a short link's record: the edge stores only which report and
// which fragment; the view state itself stays in the fragment.
type Link struct {
	Report string `json:"report"`
	View   string `json:"view"`
}

// Check refuses a record that names no report id or whose fragment is not
// a #view= fragment of URL-safe characters.
func (l Link) Check() error {
	if !ValidReportID(l.Report) {
		return fmt.Errorf("link: %q is not a report id", l.Report)
	}
	if len(l.View) > MaxViewLen {
		return fmt.Errorf("link: the view fragment is %d characters; at most %d are kept", len(l.View), MaxViewLen)
	}
	if !validView(l.View) {
		return errors.New(`link: the view must be a "#view=…" fragment as the page's "Copy view link" writes it`)
	}
	return nil
}

// Record is the link's stored bytes and its id, the first LinkIDLen hex
// digits of their SHA-256: minting the same link twice gives the same id.
func (l Link) Record() (id string, rec []byte, err error) {
	if err := l.Check(); err != nil {
		return "", nil, err
	}
	rec, err = json.Marshal(l)
	if err != nil {
		return "", nil, err
	}
	sum := sha256.Sum256(rec)
	return hex.EncodeToString(sum[:])[:LinkIDLen], rec, nil
}

// ParseLink decodes and checks a stored record.
func ParseLink(b []byte) (Link, error) {
	var l Link
	if err := json.Unmarshal(b, &l); err != nil {
		return Link{}, fmt.Errorf("link: %w", err)
	}
	return l, l.Check()
}
