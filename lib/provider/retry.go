package provider

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/deltakit/delta/lib/llm"
)

// Retry says how the HTTP providers retry transient failures (HTTP 429,
// 529, 5xx, broken connections and streams, time limits). It is the only
// retry policy of every client, so that tests can observe it.
type Retry struct {
	Attempts      int           // total tries, including the first
	Base          time.Duration // first wait; doubles after every failure
	Max           time.Duration // cap on one computed wait
	MaxRetryAfter time.Duration // cap on a server's Retry-After
	// Timeout bounds each attempt; 0 means none. An attempt that times
	// out is retried like a broken connection.
	Timeout time.Duration
	// Sleep waits d or until ctx ends. Tests swap it to record the waits
	// instead of sleeping.
	Sleep func(ctx context.Context, d time.Duration) error
}

// DefaultRetry is the policy New gives HTTP providers. Tests may replace it
// (restoring it afterwards) to make retries instant.
var DefaultRetry = Retry{
	Attempts:      4,
	Base:          500 * time.Millisecond,
	Max:           8 * time.Second,
	MaxRetryAfter: 60 * time.Second,
	Sleep:         sleepCtx,
}

// Variables that tune DefaultRetry for one run (read from LoadEnv's map):
// a flaky local server may want more attempts, a test of a binary a
// shorter first wait.
const (
	EnvRetryAttempts = "DELTA_LLM_RETRIES"    // total tries, e.g. 6
	EnvRetryBase     = "DELTA_LLM_RETRY_BASE" // first wait, e.g. 100ms
)

// retryFromEnv applies EnvRetryAttempts and EnvRetryBase to DefaultRetry.
func retryFromEnv(env map[string]string) (Retry, error) {
	r := DefaultRetry
	if v := strings.TrimSpace(env[EnvRetryAttempts]); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			return r, fmt.Errorf("%s=%q: want a whole number from 1 to 100", EnvRetryAttempts, v)
		}
		r.Attempts = n
	}
	if v := strings.TrimSpace(env[EnvRetryBase]); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return r, fmt.Errorf("%s=%q: want a duration such as 500ms", EnvRetryBase, v)
		}
		r.Base = d
	}
	return r, nil
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// APIError is an HTTP error answer of a model endpoint, with the key
// already removed from its message. 401 and 403 match ErrAuth.
type APIError struct {
	Provider   string
	Status     int
	Message    string
	RetryAfter time.Duration // from the Retry-After header; 0 if absent
	// Hint says what to check when the answer shows the URL is wrong.
	Hint    string
	keyHint string // the variables to set, for auth errors
}

func (e *APIError) Error() string {
	msg := fmt.Sprintf("%s: HTTP %d %s", e.Provider, e.Status, http.StatusText(e.Status))
	if e.Message != "" {
		msg += ": " + e.Message
	}
	if e.auth() {
		msg += "; " + e.keyHint
	}
	if e.Hint != "" {
		msg += "; " + e.Hint
	}
	return msg
}

// Is makes errors.Is(err, ErrAuth) true for authentication failures and
// errors.Is(err, llm.ErrContextOverflow) for a request too long for the
// model.
func (e *APIError) Is(target error) bool {
	return target == ErrAuth && e.auth() || target == llm.ErrContextOverflow && e.contextOverflow()
}

// overflowPhrases are how endpoints say a request exceeds the context
// window: OpenAI and vLLM ("maximum context length",
// context_length_exceeded), Anthropic ("prompt is too long"), llama.cpp
// ("context size"), others.
var overflowPhrases = []string{"context_length_exceeded", "maximum context length", "context length", "prompt is too long",
	"context size", "context window", "too many tokens", "input is too long"}

func (e *APIError) contextOverflow() bool {
	if e.Status != http.StatusBadRequest && e.Status != http.StatusRequestEntityTooLarge {
		return false
	}
	msg := strings.ToLower(e.Message)
	for _, p := range overflowPhrases {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

func (e *APIError) auth() bool {
	return e.Status == http.StatusUnauthorized || e.Status == http.StatusForbidden
}

// transient reports whether another try may succeed: rate limits,
// timeouts, overload and server faults, but not statuses that will answer
// the same way every time (501 Not Implemented, 505 …).
func (e *APIError) transient() bool {
	switch e.Status {
	case http.StatusTooManyRequests, http.StatusRequestTimeout, http.StatusConflict,
		http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable,
		http.StatusGatewayTimeout, statusOverloaded:
		return true
	}
	return false
}

// statusOverloaded is Anthropic's "overloaded" status.
const statusOverloaded = 529

// newAPIError builds an APIError from a response status, header and the
// provider's error text.
func (ep endpoint) newAPIError(status int, header http.Header, message string) *APIError {
	message = strings.TrimSpace(ep.redact(message))
	if len(message) > 500 {
		message = message[:500] + "…"
	}
	return &APIError{
		Provider:   ep.name,
		Status:     status,
		Message:    message,
		RetryAfter: retryAfter(header),
		keyHint:    fmt.Sprintf("set a valid key in %s (or %s), in the environment or a .env file", ep.keyVars[0], ep.keyVars[1]),
	}
}

// retryAfter parses retry-after-ms (milliseconds, OpenAI's and
// Anthropic's) or Retry-After (seconds or an HTTP date).
func retryAfter(h http.Header) time.Duration {
	if ms, err := strconv.ParseFloat(strings.TrimSpace(h.Get("Retry-After-Ms")), 64); err == nil && ms >= 0 {
		return time.Duration(ms * float64(time.Millisecond))
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(0, time.Until(t))
	}
	return 0
}

// networkError reports whether err is a failure to talk to the server
// rather than an answer from it.
func networkError(err error) bool {
	var ne net.Error
	var ue *url.Error
	return errors.As(err, &ne) || errors.As(err, &ue) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED)
}

// RetryEvent is one failed attempt the HTTP providers are about to retry.
type RetryEvent struct {
	Provider string
	Attempt  int           // the attempt that failed, from 1
	Attempts int           // total tries allowed
	Wait     time.Duration // before the next try
	Err      error         // why the attempt failed
}

type retryKey struct{}

// WithRetryNotify returns a context under which the HTTP providers call
// notify before every retry, so that a caller (delta-run's engine.log and
// -v stream) can tell a retried request from a slow model.
func WithRetryNotify(ctx context.Context, notify func(RetryEvent)) context.Context {
	return context.WithValue(ctx, retryKey{}, notify)
}

// do runs call until it succeeds, fails for good, or the attempts run out.
// call must return *APIError for HTTP error answers.
func (r Retry) do(ctx context.Context, ep endpoint, call func(context.Context) (llm.Response, error)) (llm.Response, error) {
	attempts := max(1, r.Attempts)
	var last error
	for i := range attempts {
		resp, err := r.attempt(ctx, ep, call)
		if err == nil {
			return resp, nil
		}
		if ctx.Err() != nil {
			return llm.Response{}, fmt.Errorf("%s: %w", ep.name, ctx.Err())
		}
		wait, ok := r.retryable(err, i)
		if !ok {
			return llm.Response{}, err
		}
		notifyPartial(ctx, i+1, err)
		last = err
		if i == attempts-1 {
			break
		}
		if notify, ok := ctx.Value(retryKey{}).(func(RetryEvent)); ok {
			notify(RetryEvent{Provider: ep.name, Attempt: i + 1, Attempts: attempts, Wait: wait, Err: err})
		}
		if err := r.Sleep(ctx, wait); err != nil {
			return llm.Response{}, fmt.Errorf("%s: %w", ep.name, err)
		}
	}
	return llm.Response{}, fmt.Errorf("%s: giving up after %d attempts: %w", ep.name, attempts, last)
}

// notifyPartial hands the text of an answer that broke off mid-stream to
// the caller (llm.WithPartialNotify), which would lose it otherwise.
func notifyPartial(ctx context.Context, attempt int, err error) {
	var se *StreamError
	if errors.As(err, &se) && se.Partial.Content != "" {
		llm.NotifyPartial(ctx, llm.PartialAnswer{Attempt: attempt, Text: se.Partial.Content, Err: err})
	}
}

// attempt makes one call, bounded by r.Timeout.
func (r Retry) attempt(ctx context.Context, ep endpoint, call func(context.Context) (llm.Response, error)) (llm.Response, error) {
	if r.Timeout <= 0 {
		return call(ctx)
	}
	actx, cancel := context.WithTimeout(ctx, r.Timeout)
	defer cancel()
	resp, err := call(actx)
	if err != nil && ctx.Err() == nil && errors.Is(actx.Err(), context.DeadlineExceeded) {
		return resp, &TimeoutError{Provider: ep.name, URL: ep.baseURL, After: r.Timeout}
	}
	return resp, err
}

// TimeoutError is a request that got no complete answer in time.
type TimeoutError struct {
	Provider string
	URL      string // the base URL, "" for the provider's default
	After    time.Duration
	// Setting is the agent.yaml key of the limit that ran out:
	// llm.timeout_ms (the whole answer, the default), or for a stream
	// llm.first_byte_timeout_ms or llm.idle_timeout_ms.
	Setting string
}

func (e *TimeoutError) Error() string {
	where := e.URL
	if where == "" {
		where = "the " + e.Provider + " API"
	}
	what, setting := "no answer", e.Setting
	switch setting {
	case "llm.first_byte_timeout_ms":
		what = "no first byte"
	case "llm.idle_timeout_ms":
		what = "the answer stalled: nothing more"
	default:
		setting = "llm.timeout_ms"
	}
	return fmt.Sprintf("%s: %s from %s within %v (%s): check that the endpoint is up, or raise %s for a slow model",
		e.Provider, what, where, e.After, setting, setting)
}

// retryable decides whether err deserves another try after failure number
// i (0-based), and how long to wait first.
func (r Retry) retryable(err error, i int) (time.Duration, bool) {
	var ae *APIError
	if errors.As(err, &ae) {
		if !ae.transient() {
			return 0, false
		}
		if ae.RetryAfter > 0 {
			return min(ae.RetryAfter, r.MaxRetryAfter), true
		}
		return r.backoff(i), true
	}
	var te *TimeoutError
	var se *StreamError
	if networkError(err) || errors.As(err, &te) || errors.As(err, &se) {
		return r.backoff(i), true
	}
	return 0, false
}

// backoff is exponential with jitter: a random wait in [d/2, d] where d
// doubles from Base up to Max, so clients that failed together spread out.
func (r Retry) backoff(i int) time.Duration {
	d := r.Base
	for range i {
		d *= 2
		if d >= r.Max {
			d = r.Max
			break
		}
	}
	d = min(d, r.Max)
	if d <= 0 {
		return 0
	}
	half := d / 2
	return half + rand.N(d-half+1)
}
