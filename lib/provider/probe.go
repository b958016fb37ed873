package provider

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/deltakit/delta/lib/agent"
)

// ProbeTimeout bounds one Probe.
const ProbeTimeout = 10 * time.Second

// Probe checks that the model endpoint cfg names answers to its key, with
// a GET of its model list: no tokens are spent, and no SDK is involved. It returns what it reached
// ("openai at URL, key from VAR"). The errors are those of a run: no key,
// an endpoint that cannot be reached, a key it rejects (ErrAuth), a page
// that is not the API (with the URL setting to check).
func Probe(ctx context.Context, cfg agent.LLMConfig, env map[string]string) (string, error) {
	var r remote
	var err error
	var path string
	header := http.Header{}
	switch cfg.Provider {
	case "scripted":
		return "scripted provider: offline, nothing to reach", nil
	case "anthropic":
		r, err = newRemote("anthropic", cfg, env, "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", anthropicDefaultBaseURL)
		path = "v1/models"
		header.Set("anthropic-version", "2023-06-01")
		header.Set("x-api-key", r.ep.key)
	case "", "openai", "openai-compatible":
		name := cfg.Provider
		if name == "" {
			name = "openai"
		}
		r, err = newRemote(name, cfg, env, "OPENAI_API_KEY", "OPENAI_BASE_URL", openAIDefaultBaseURL)
		path = "models"
		if r.ep.key != "" {
			header.Set("Authorization", "Bearer "+r.ep.key)
		}
	case "gemini":
		r, err = newRemote("gemini", cfg, env, "GEMINI_API_KEY", "GEMINI_BASE_URL", geminiAPIBaseURL)
		path = "models"
		header.Set("X-Goog-Api-Key", r.ep.key)
	default:
		return "", fmt.Errorf("%w %q", ErrUnknownProvider, cfg.Provider)
	}
	if err != nil {
		return "", err
	}
	url := strings.TrimSuffix(r.base, "/") + "/" + path
	ctx, cancel := context.WithTimeout(ctx, ProbeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", r.redacted(err)
	}
	req.Header = header
	resp, err := r.pageGuard(req, http.DefaultClient.Do)
	var ae *APIError
	if errors.As(err, &ae) {
		return "", ae
	}
	if err != nil {
		return "", r.redacted(fmt.Errorf("cannot reach %s: %w", url, err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		return "", r.apiError(resp.StatusCode, resp, errorMessage(body))
	}
	if r.ep.key == "" {
		return fmt.Sprintf("%s at %s answers (no key)", r.ep.name, r.base), nil
	}
	keyFrom := r.ep.keyVars[0]
	if strings.TrimSpace(env[keyFrom]) == "" {
		keyFrom = r.ep.keyVars[1]
	}
	return fmt.Sprintf("%s at %s answers (key from %s)", r.ep.name, r.base, keyFrom), nil
}
