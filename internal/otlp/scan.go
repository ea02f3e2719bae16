package otlp

import (
	"errors"

	"github.com/dsight/dsight/internal/jsonscan"
)

// scanner is the schema-directed JSON reader the decoder walks OTLP records
// with. It reads the JSON dialect, accepting only what encoding/json accepts
// (the fuzz target checks this), except that it bounds nesting at maxDepth.
type scanner = jsonscan.Scanner

// syntaxError is a JSON-level problem at a byte offset of the record.
type syntaxError = jsonscan.SyntaxError

// maxDepth bounds nesting so a hostile record cannot exhaust the stack.
const maxDepth = 64

func newScanner() *scanner { return &scanner{Dialect: jsonscan.JSON, MaxDepth: maxDepth} }

// quoteByte names a byte in an error message.
func quoteByte(c byte) string { return jsonscan.Describe(c) }

// isJSONNumber reports whether b is exactly one JSON number.
func isJSONNumber(b []byte) bool { return jsonscan.IsNumber(b) }

func isSyntaxEOF(err error) bool {
	var se *syntaxError
	return errors.As(err, &se) && se.EOF
}
