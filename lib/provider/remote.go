package provider

import (
	"fmt"
	"net/http"

	"github.com/deltakit/delta/lib/agent"
)

// remote is what every HTTP provider (openai, anthropic) resolves before
// its first call and uses on each: where requests go, with which key,
// how they are retried and how failures are reported without the key.
type remote struct {
	ep    endpoint
	base  string // ep.baseURL, or the provider's default when unset
	retry Retry
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
	base := ep.baseURL
	if base == "" {
		base = defaultBase
	}
	return remote{ep: ep, base: base, retry: retry}, nil
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
