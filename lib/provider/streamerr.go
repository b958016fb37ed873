package provider

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/deltakit/delta/lib/llm"
)

// StreamError is an answer that broke off or could not be read: the
// connection dropped mid-stream, the stream ended before its last event,
// or an event was not the JSON the protocol promises. It is retried like
// a broken connection. Partial holds what had arrived before (text,
// complete tool calls), so that a caller can keep the text of an answer
// that never completed (errors.As on the final error, or RetryEvent.Err
// before each retry).
type StreamError struct {
	Provider string
	URL      string // the endpoint that was answering
	Err      error
	Partial  llm.Response
}

func (e *StreamError) Error() string {
	what := "the answer from " + e.URL + " broke off"
	var se *syntaxError
	if errors.As(e.Err, &se) {
		what = "the answer from " + e.URL + " is corrupt"
	}
	if n := len(e.Partial.Content); n > 0 {
		what += fmt.Sprintf(" after %d bytes of text", n)
	}
	return fmt.Sprintf("%s: %s: %v", e.Provider, what, e.Err)
}

func (e *StreamError) Unwrap() error { return e.Err }

// syntaxError is an event or body that is not the JSON expected.
type syntaxError struct {
	what string // "event 3 (response.output_text.delta)", "the body"
	err  error
	text string // the start of what was received
}

func (e *syntaxError) Error() string {
	return fmt.Sprintf("%s is not valid JSON (%v): %q", e.what, e.err, e.text)
}

func (e *syntaxError) Unwrap() error { return e.err }

// decodeEvent decodes the JSON of event n into v, or says it is corrupt.
func decodeEvent(data string, n int, name string, v any) error {
	if err := json.Unmarshal([]byte(data), v); err != nil {
		what := fmt.Sprintf("event %d", n)
		if name != "" {
			what += " (" + name + ")"
		}
		return &syntaxError{what: what, err: err, text: clip(data, 80)}
	}
	return nil
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// streamBroke wraps a failure to read a stream of endpoint url: an
// incomplete event or a dropped connection is a broken stream; a time
// limit is passed on as it is when no text had arrived.
func (r remote) streamBroke(url string, err error, partial llm.Response) error {
	var te *TimeoutError
	if errors.As(err, &te) {
		if partial.Content == "" {
			return te // nothing to keep: the time limit says it all
		}
		return &StreamError{Provider: r.ep.name, URL: url, Err: te, Partial: partial}
	}
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return &StreamError{Provider: r.ep.name, URL: url, Err: redactedError{err: err, text: r.ep.redact(err.Error())}, Partial: partial}
}

// eventAPIError is an error reported inside a stream (OpenAI's error
// chunk or error event): an *APIError whose status is what the same
// failure answers over HTTP, so that rate limits and server faults are
// retried and a context overflow is llm.ErrContextOverflow.
func (r remote) eventAPIError(code, typ, message string) *APIError {
	status := http.StatusInternalServerError
	kind := strings.ToLower(code + " " + typ)
	switch {
	case strings.Contains(kind, "rate_limit") || strings.Contains(kind, "quota"):
		status = http.StatusTooManyRequests
	case strings.Contains(kind, "overloaded"):
		status = statusOverloaded
	case strings.Contains(kind, "context_length") || strings.Contains(kind, "invalid_request") || strings.Contains(kind, "invalid_prompt"):
		status = http.StatusBadRequest
	}
	if code != "" && !strings.Contains(message, code) {
		message += " (" + code + ")"
	}
	return r.ep.newAPIError(status, nil, message)
}
