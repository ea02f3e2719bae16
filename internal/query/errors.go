package query

import (
	"errors"
	"fmt"
)

// Code classifies a failure so that callers branch on it, never on the
// message text (which is for people and may change).
type Code string

// The error codes every failure envelope carries.
const (
	// CodeBadArgs: the question is malformed: unknown operation, unknown or
	// misapplied argument, a value of the wrong type or out of bounds.
	CodeBadArgs Code = "bad_args"
	// CodeNotFound: an id names nothing in the report.
	CodeNotFound Code = "not_found"
	// CodeShardsNeeded: the answer needs metric shards the engine does not
	// hold; Error.Shards lists them (hand them over and ask again).
	CodeShardsNeeded Code = "shards_needed"
	// CodeEvidencePending: the answer needs the report's server evidence,
	// which has not been handed over yet.
	CodeEvidencePending Code = "evidence_pending"
	// CodeInternal: anything else, such as a corrupt report.
	CodeInternal Code = "internal"
)

// Error is the failure every operation returns: a code, a message for
// people and, with CodeShardsNeeded, the shards to load. Find it with
// errors.As; CodeOf reads the code of any error.
type Error struct {
	Code    Code
	Message string
	Shards  []ShardNeed
}

func (e *Error) Error() string { return e.Message }

// ShardsNeededError is the name plot callers knew; it is an *Error whose
// Code is CodeShardsNeeded.
type ShardsNeededError = Error

// CodeOf returns err's code: that of the *Error it wraps, else
// CodeInternal.
func CodeOf(err error) Code {
	var qe *Error
	if errors.As(err, &qe) {
		return qe.Code
	}
	return CodeInternal
}

// asError returns err as an *Error, classing an untyped one as internal.
func asError(err error) *Error {
	var qe *Error
	if errors.As(err, &qe) {
		return qe
	}
	return &Error{Code: CodeInternal, Message: err.Error()}
}

func badArgs(format string, a ...any) *Error {
	return &Error{Code: CodeBadArgs, Message: fmt.Sprintf(format, a...)}
}

func notFound(format string, a ...any) *Error {
	return &Error{Code: CodeNotFound, Message: fmt.Sprintf(format, a...)}
}
