package aiperf

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/dsight/dsight/internal/jsonscan"
)

// text is a recorded string; ok is false when the field was absent or null.
type text struct {
	s  string
	ok bool
}

// nonEmpty reports a value that Python's `or` would select.
func (t text) nonEmpty() bool { return t.ok && t.s != "" }

func (t text) ptr() *string {
	if !t.ok {
		return nil
	}
	s := t.s
	return &s
}

// number is a recorded number literal; lit is nil when absent or null.
// number is a numeric field as recorded.
type number = jsonscan.NumberField

// fields are the parts of one export row this package uses. Literals point
// into the line buffer and are only valid while the row is processed.
type fields struct {
	hasMetadata bool
	hasStartKey bool // top-level start_time: a native AgentPerf row

	xRequestID, requestID           text
	xCorrelationID, rootCorrelation text
	parentCorrelation, sessionID    text
	conversationID, sourceTraceID   text
	workerID                        text
	benchmarkPhase, creditPhase     text
	turnIndex, agentDepth           number
	startNS, endNS, timestampNS     number
	wasCancelled                    bool

	ttft, ttftOld             number // time_to_first_token, ttft (ms)
	inputTokens, outputTokens number
	cacheReadTokens           number
	minRequest, maxResponse   number // legacy ns
	latency                   number // legacy request_latency (ms)

	failed    bool
	errorText string
}

// maxErrorText bounds the error summary kept per request.
const maxErrorText = 240

func decodeRow(s *jsonscan.Scanner, line []byte, f *fields) error {
	*f = fields{}
	s.Reset(line)
	if s.Peek() != jsonscan.Object {
		if err := s.Skip(); err != nil {
			return err
		}
		return errors.New("record is not a JSON object")
	}
	err := s.Object(func(key []byte) error {
		switch string(key) {
		case "metadata":
			f.hasMetadata = true
			return decodeMetadata(s, f)
		case "metrics":
			return decodeMetrics(s, f)
		case "error", "errors":
			return decodeError(s, f)
		case "start_time":
			f.hasStartKey = true
		}
		return nil
	})
	if err != nil {
		return err
	}
	return s.End()
}

func decodeMetadata(s *jsonscan.Scanner, f *fields) error {
	if s.Peek() != jsonscan.Object {
		return errors.New("metadata is not an object")
	}
	return s.Object(func(key []byte) error {
		var err error
		switch string(key) {
		case "x_request_id":
			f.xRequestID, err = readText(s, "metadata.x_request_id")
		case "request_id":
			f.requestID, err = readText(s, "metadata.request_id")
		case "x_correlation_id":
			f.xCorrelationID, err = readText(s, "metadata.x_correlation_id")
		case "root_correlation_id":
			f.rootCorrelation, err = readText(s, "metadata.root_correlation_id")
		case "parent_correlation_id":
			f.parentCorrelation, err = readText(s, "metadata.parent_correlation_id")
		case "session_id":
			f.sessionID, err = readText(s, "metadata.session_id")
		case "conversation_id":
			f.conversationID, err = readText(s, "metadata.conversation_id")
		case "source_trace_id":
			f.sourceTraceID, err = readText(s, "metadata.source_trace_id")
		case "worker_id":
			f.workerID, err = readText(s, "metadata.worker_id")
		case "benchmark_phase":
			f.benchmarkPhase, err = readText(s, "metadata.benchmark_phase")
		case "credit_phase":
			f.creditPhase, err = readText(s, "metadata.credit_phase")
		case "turn_index":
			f.turnIndex, err = s.ReadNumber("metadata.turn_index")
		case "agent_depth":
			f.agentDepth, err = s.ReadNumber("metadata.agent_depth")
		case "request_start_ns":
			f.startNS, err = s.ReadNumber("metadata.request_start_ns")
		case "request_end_ns":
			f.endNS, err = s.ReadNumber("metadata.request_end_ns")
		case "timestamp_ns":
			f.timestampNS, err = s.ReadNumber("metadata.timestamp_ns")
		case "was_cancelled":
			f.wasCancelled, err = s.Truthy()
		}
		return err
	})
}

func decodeMetrics(s *jsonscan.Scanner, f *fields) error {
	if s.Null() {
		return nil
	}
	if s.Peek() != jsonscan.Object {
		return errors.New("metrics is not an object")
	}
	return s.Object(func(key []byte) error {
		var dst *number
		var name, valueName string // constants: no allocation per row
		switch string(key) {
		case "time_to_first_token":
			dst, name, valueName = &f.ttft, "metrics.time_to_first_token", "metrics.time_to_first_token.value"
		case "ttft":
			dst, name, valueName = &f.ttftOld, "metrics.ttft", "metrics.ttft.value"
		case "input_sequence_length":
			dst, name, valueName = &f.inputTokens, "metrics.input_sequence_length", "metrics.input_sequence_length.value"
		case "output_sequence_length":
			dst, name, valueName = &f.outputTokens, "metrics.output_sequence_length", "metrics.output_sequence_length.value"
		case "usage_prompt_cache_read_tokens":
			dst, name, valueName = &f.cacheReadTokens, "metrics.usage_prompt_cache_read_tokens", "metrics.usage_prompt_cache_read_tokens.value"
		case "min_request_timestamp":
			dst, name, valueName = &f.minRequest, "metrics.min_request_timestamp", "metrics.min_request_timestamp.value"
		case "max_response_timestamp":
			dst, name, valueName = &f.maxResponse, "metrics.max_response_timestamp", "metrics.max_response_timestamp.value"
		case "request_latency":
			dst, name, valueName = &f.latency, "metrics.request_latency", "metrics.request_latency.value"
		default:
			return nil // skipped in place, however large
		}
		dst.Present = true
		if s.Null() {
			return nil
		}
		if s.Peek() != jsonscan.Object {
			return fmt.Errorf("%s is not an object", name)
		}
		return s.Object(func(k []byte) error {
			if string(k) != "value" {
				return nil
			}
			v, err := s.ReadNumber(valueName)
			dst.Lit = v.Lit
			return err
		})
	})
}

// decodeError records whether the error field is truthy (the reference's
// test) and a short summary of what the client recorded.
func decodeError(s *jsonscan.Scanner, f *fields) error {
	var summary string
	var truthy bool
	var err error
	switch s.Peek() {
	case jsonscan.Object:
		summary, truthy, err = errorObject(s)
	case jsonscan.String:
		summary, err = s.Str()
		truthy = summary != ""
	case jsonscan.Array:
		n := 0
		err = s.Array(func(i int) error {
			n++
			if i > 0 {
				return nil
			}
			var e error
			switch s.Peek() {
			case jsonscan.Object:
				summary, _, e = errorObject(s)
			case jsonscan.String:
				summary, e = s.Str()
			}
			return e
		})
		truthy = n > 0
		if n > 1 {
			summary = fmt.Sprintf("%s (+%d more)", summary, n-1)
		}
	default:
		var raw []byte
		raw, err = s.Raw()
		if err == nil {
			inner := jsonscan.Scanner{Dialect: jsonscan.Python}
			inner.Reset(raw)
			truthy, err = inner.Truthy()
			summary = string(raw)
		}
	}
	if err != nil || !truthy {
		return err
	}
	if !f.failed || f.errorText == "" {
		f.errorText = shorten(summary)
	}
	f.failed = true
	return nil
}

// errorObject summarizes AIPerf's {"code", "type", "message"} error record
// as "Type (code): message".
func errorObject(s *jsonscan.Scanner) (summary string, truthy bool, err error) {
	var typ, message, code string
	members := 0
	err = s.Object(func(key []byte) error {
		members++
		var e error
		switch string(key) {
		case "type":
			if s.Peek() == jsonscan.String {
				typ, e = s.Str()
			}
		case "message":
			if s.Peek() == jsonscan.String {
				message, e = s.Str()
			}
		case "code":
			switch s.Peek() {
			case jsonscan.Number:
				var lit []byte
				lit, e = s.Num()
				code = string(lit)
			case jsonscan.String:
				code, e = s.Str()
			}
		}
		return e
	})
	var b strings.Builder
	b.WriteString(typ)
	if code != "" {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString("(" + code + ")")
	}
	if message != "" {
		if b.Len() > 0 {
			b.WriteString(": ")
		}
		b.WriteString(message)
	}
	if b.Len() == 0 && members > 0 {
		b.WriteString("error recorded without type, code or message")
	}
	return b.String(), members > 0, err
}

func shorten(s string) string {
	if len(s) <= maxErrorText {
		return s
	}
	cut := maxErrorText
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// readText reads an identity-like field: a string, a number (kept as its
// literal), or null.
func readText(s *jsonscan.Scanner, name string) (text, error) {
	switch s.Peek() {
	case jsonscan.Null:
		s.Null()
		return text{}, nil
	case jsonscan.String:
		v, err := s.Str()
		return text{v, true}, err
	case jsonscan.Number:
		lit, err := s.Num()
		return text{string(lit), true}, err
	case jsonscan.Invalid:
		return text{}, s.Skip()
	}
	if err := s.Skip(); err != nil {
		return text{}, err
	}
	return text{}, fmt.Errorf("%s is not a string", name)
}
