package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// The HTTP exchange every client of ours makes: a JSON POST, error answers
// turned into *APIError, and for streams a watchdog that gives up on an
// endpoint that goes quiet. Time limits are per gap rather than per
// request so that a long answer that keeps coming is never cut, while a
// hung endpoint fails in minutes.

// Default time limits of a streamed answer: the first byte, and then any
// gap between two reads. A model that is thinking still sends keep-alive
// comments or events well within them.
const (
	DefaultFirstByteTimeout = 2 * time.Minute
	DefaultIdleTimeout      = 2 * time.Minute
)

// Variables that set the stream time limits for one run when agent.yaml
// does not (durations such as 90s).
const (
	EnvFirstByteTimeout = "DELTA_LLM_FIRST_BYTE_TIMEOUT"
	EnvIdleTimeout      = "DELTA_LLM_IDLE_TIMEOUT"
)

// maxErrorBody bounds how much of an error answer is read.
const maxErrorBody = 64 << 10

// post sends body to path under the base URL: the one way every client of
// ours (Chat Completions, Responses, Anthropic Messages, Gemini) reaches
// its API. A 2xx answer is returned with its body to read; any other
// status is an *APIError. With stream, the answer must start within
// r.firstByte and never pause longer than r.idle: the body's reads then
// fail with a *TimeoutError.
func (r remote) post(ctx context.Context, path string, body []byte, stream bool) (*http.Response, error) {
	url := strings.TrimSuffix(r.base, "/") + "/" + path
	var wd *watchdog
	if stream {
		ctx, wd = r.watch(ctx, url)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		wd.stop()
		return nil, r.redacted(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "delta")
	if stream {
		req.Header.Set("Accept", "text/event-stream")
	}
	for k, v := range r.header {
		req.Header[k] = v
	}
	if r.ep.key != "" && r.auth != nil {
		r.auth(req.Header, r.ep.key)
	}
	resp, err := r.pageGuard(req, r.http.Do)
	if err != nil {
		err = wd.cause(err)
		wd.stop()
		var ae *APIError
		if errors.As(err, &ae) {
			return nil, ae
		}
		return nil, r.redacted(err)
	}
	if resp.StatusCode/100 != 2 {
		defer resp.Body.Close()
		defer wd.stop()
		text, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		msg := errorMessage
		if r.errMsg != nil {
			msg = r.errMsg
		}
		return nil, r.apiError(resp.StatusCode, resp, msg(text))
	}
	if wd != nil {
		resp.Body = &watchedBody{ReadCloser: resp.Body, wd: wd}
	}
	return resp, nil
}

// bearer is the Authorization header of OpenAI-style endpoints.
func bearer(h http.Header, key string) { h.Set("Authorization", "Bearer "+key) }

// errorMessage is the text of an error answer: the message of OpenAI's
// and Anthropic's {"error": {"message": …}} envelope, Gemini's list of
// them, a bare {"message": …}, or the body itself.
func errorMessage(body []byte) string {
	var env struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	if json.Unmarshal(body, &env) != nil {
		var list []json.RawMessage
		if json.Unmarshal(body, &list) == nil && len(list) > 0 {
			return errorMessage(list[0])
		}
		return string(body)
	}
	var inner struct {
		Message string `json:"message"`
		Code    any    `json:"code"`
	}
	if json.Unmarshal(env.Error, &inner) == nil && inner.Message != "" {
		if code, ok := inner.Code.(string); ok && code != "" && !strings.Contains(inner.Message, code) {
			return inner.Message + " (" + code + ")"
		}
		return inner.Message
	}
	var s string
	if json.Unmarshal(env.Error, &s) == nil && s != "" {
		return s
	}
	if env.Message != "" {
		return env.Message
	}
	return string(body)
}

// watchdog cancels a request whose answer does not start, or stalls, in
// time; the cancellation's cause is the *TimeoutError to report.
type watchdog struct {
	mu     sync.Mutex
	timer  *time.Timer
	idle   time.Duration
	ctx    context.Context
	cancel context.CancelCauseFunc
	make   func(setting string, after time.Duration) error
	first  bool // the first byte has arrived
}

// watch starts a watchdog over one streamed request to url.
func (r remote) watch(ctx context.Context, url string) (context.Context, *watchdog) {
	ctx, cancel := context.WithCancelCause(ctx)
	wd := &watchdog{idle: r.idle, ctx: ctx, cancel: cancel, make: func(setting string, after time.Duration) error {
		return &TimeoutError{Provider: r.ep.name, URL: url, After: after, Setting: setting}
	}}
	wd.timer = time.AfterFunc(r.firstByte, func() {
		wd.cancel(wd.make("llm.first_byte_timeout_ms", r.firstByte))
	})
	return ctx, wd
}

// read notes that n bytes arrived: the next gap is measured from now.
func (wd *watchdog) read(n int) {
	if n == 0 {
		return
	}
	wd.mu.Lock()
	defer wd.mu.Unlock()
	if !wd.first {
		wd.first = true
		wd.timer.Stop()
		wd.timer = time.AfterFunc(wd.idle, func() { wd.cancel(wd.make("llm.idle_timeout_ms", wd.idle)) })
		return
	}
	wd.timer.Reset(wd.idle)
}

// cause is err, or the *TimeoutError that made it happen.
func (wd *watchdog) cause(err error) error {
	if wd == nil || err == nil {
		return err
	}
	var te *TimeoutError
	if errors.As(context.Cause(wd.ctx), &te) {
		return te
	}
	return err
}

// stop ends the watch; safe on nil.
func (wd *watchdog) stop() {
	if wd == nil {
		return
	}
	wd.mu.Lock()
	wd.timer.Stop()
	wd.mu.Unlock()
	wd.cancel(nil)
}

// watchedBody is a streamed body under a watchdog.
type watchedBody struct {
	io.ReadCloser
	wd *watchdog
}

func (b *watchedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.wd.read(n)
	return n, b.wd.cause(err)
}

func (b *watchedBody) Close() error {
	err := b.ReadCloser.Close()
	b.wd.stop()
	return err
}

// streamTimeouts reads the stream time limits: agent.yaml's keys, else
// the environment's, else the defaults.
func streamTimeouts(firstMS, idleMS *int64, env map[string]string) (first, idle time.Duration, err error) {
	first, idle = DefaultFirstByteTimeout, DefaultIdleTimeout
	for _, s := range []struct {
		ms  *int64
		env string
		to  *time.Duration
	}{{firstMS, EnvFirstByteTimeout, &first}, {idleMS, EnvIdleTimeout, &idle}} {
		if s.ms != nil {
			*s.to = time.Duration(*s.ms) * time.Millisecond
			continue
		}
		if v := strings.TrimSpace(env[s.env]); v != "" {
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				return 0, 0, fmt.Errorf("%s=%q: want a positive duration such as 90s", s.env, v)
			}
			*s.to = d
		}
	}
	return first, idle, nil
}
