package provider

import (
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/deltakit/delta/lib/agent"
)

// remote is what every HTTP provider (openai, anthropic, gemini) resolves before
// its first call and uses on each: where requests go, with which key,
// how they are retried and how failures are reported without the key.
type remote struct {
	ep    endpoint
	base  string // ep.baseURL, or the provider's default when unset
	retry Retry
	// http is the client requests go through: it gives up connecting after
	// ConnectTimeout, so a dead host fails instead of hanging.
	http *http.Client
	// firstByte and idle bound a streamed answer (see post).
	firstByte, idle time.Duration
	// auth sets the key's header on a request of ours; header holds
	// headers every request carries (an API version).
	auth   func(h http.Header, key string)
	header http.Header
	// errMsg is the message of an error answer's body (errorMessage when
	// nil): each API words its error envelope its own way.
	errMsg func(body []byte) string
	// in is what the model takes besides text (parts.go).
	in inputs
}

// DefaultTimeout bounds one model request when llm.timeout_ms is unset:
// generous, since a long answer from a slow model can take minutes, but
// finite, so an endpoint that never answers fails the run with a clear
// error instead of hanging it.
const DefaultTimeout = 10 * time.Minute

// ConnectTimeout bounds connecting to the endpoint (TCP and TLS).
const ConnectTimeout = 30 * time.Second

// newHTTPClient is the client of every HTTP provider.
func newHTTPClient() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = (&net.Dialer{Timeout: ConnectTimeout, KeepAlive: 30 * time.Second}).DialContext
	t.TLSHandshakeTimeout = ConnectTimeout
	return &http.Client{Transport: t}
}

// newRemote resolves key, base URL (defaultBase when neither agent.yaml
// nor the environment sets one) and retry policy for provider name.
func newRemote(name string, cfg agent.LLMConfig, env map[string]string, keyVar, urlVar, defaultBase string) (remote, error) {
	ep, err := resolveEndpoint(name, cfg, env, keyVar, urlVar)
	if err != nil {
		return remote{}, err
	}
	retry, err := retryFromEnv(env)
	if err != nil {
		return remote{}, fmt.Errorf("%s provider: %w", ep.name, err)
	}
	retry.Timeout = DefaultTimeout
	if cfg.TimeoutMS != nil {
		retry.Timeout = time.Duration(*cfg.TimeoutMS) * time.Millisecond
	}
	first, idle, err := streamTimeouts(cfg.FirstByteTimeoutMS, cfg.IdleTimeoutMS, env)
	if err != nil {
		return remote{}, fmt.Errorf("%s provider: %w", ep.name, err)
	}
	base := ep.baseURL
	if base == "" {
		base = defaultBase
	}
	return remote{ep: ep, base: base, retry: retry, http: newHTTPClient(), firstByte: first, idle: idle, auth: bearer,
		in: inputsFrom(cfg)}, nil
}

// apiError is an HTTP error answer as APIError; resp may be nil.
func (r remote) apiError(status int, resp *http.Response, msg string) error {
	var h http.Header
	if resp != nil {
		h = resp.Header
	}
	return r.ep.newAPIError(status, h, msg)
}

// redacted is any other failure, shown without the key but still
// matching errors.Is/As on err.
func (r remote) redacted(err error) error {
	return redactedError{err: err, text: r.ep.name + ": " + r.ep.redact(err.Error())}
}

// redactedError keeps the wrapped error for errors.Is/As but shows a text
// without the key.
type redactedError struct {
	err  error
	text string
}

func (e redactedError) Error() string { return e.text }
func (e redactedError) Unwrap() error { return e.err }
