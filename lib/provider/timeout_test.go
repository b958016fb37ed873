package provider_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/llm/llmtest"
	"github.com/deltakit/delta/lib/provider"
)

// hungServer accepts requests and never answers (until the client gives
// up), like an endpoint whose model is stuck.
func hungServer(t *testing.T) (*httptest.Server, func() int) {
	t.Helper()
	requests := make(chan struct{}, 100)
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Reading the body lets the server notice a client that hangs up.
		io.Copy(io.Discard, r.Body)
		requests <- struct{}{}
		select {
		case <-r.Context().Done():
		case <-done:
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(done) }) // runs first: no handler outlives the test
	return srv, func() int { return len(requests) }
}

// A request that gets no answer within llm.timeout_ms fails with a
// TimeoutError naming the endpoint and the setting, after the usual
// retries, instead of hanging the run.
func TestHungEndpointTimesOut(t *testing.T) {
	for _, name := range []string{"openai", "anthropic"} {
		t.Run(name, func(t *testing.T) {
			waits := recordRetries(t)
			srv, requests := hungServer(t)
			timeout := int64(50)
			p, err := provider.New(agent.LLMConfig{Provider: name, TimeoutMS: &timeout},
				map[string]string{"DELTA_API_KEY": testKey, "DELTA_BASE_URL": srv.URL, provider.EnvRetryAttempts: "2"})
			if err != nil {
				t.Fatal(err)
			}
			_, err = p.Complete(context.Background(), llm.Request{Params: llm.Params{Model: "m"}})
			var te *provider.TimeoutError
			if !errors.As(err, &te) {
				t.Fatalf("Complete error = %v, want a TimeoutError", err)
			}
			for _, want := range []string{"giving up after 2 attempts", "no answer from " + srv.URL, "within 50ms", "llm.timeout_ms"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
			if n := requests(); n != 2 {
				t.Errorf("%d requests, want 2 (a timed-out attempt is retried)", n)
			}
			if len(waits()) != 1 {
				t.Errorf("waits %v, want one backoff between the two attempts", waits())
			}
		})
	}
}

// Without llm.timeout_ms, requests are bounded by the generous default.
func TestDefaultTimeout(t *testing.T) {
	if provider.DefaultTimeout < time.Minute {
		t.Fatalf("DefaultTimeout = %v: a slow model's long answer needs minutes", provider.DefaultTimeout)
	}
	recordRetries(t)
	s := llmtest.NewServer(t)
	s.Delay(time.Minute)
	s.ReplyText("late")
	p := newOpenAI(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	// The caller's deadline wins over the per-attempt one and is not
	// reported as the endpoint's timeout.
	_, err := p.Complete(ctx, llm.Request{Params: llm.Params{Model: "m"}})
	var te *provider.TimeoutError
	if errors.As(err, &te) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Complete error = %v, want the caller's context.DeadlineExceeded", err)
	}
}

// A local server that needs no key (Ollama, vLLM) works with only a base
// URL, and no credential header is sent.
func TestNoKeyWithBaseURL(t *testing.T) {
	t.Run("openai", func(t *testing.T) {
		s := llmtest.NewServer(t)
		s.ReplyText("hi")
		p, err := provider.New(agent.LLMConfig{}, map[string]string{"DELTA_BASE_URL": s.URL})
		if err != nil {
			t.Fatalf("New without a key but with DELTA_BASE_URL: %v", err)
		}
		if _, err := p.Complete(context.Background(), llm.Request{Params: llm.Params{Model: "m"}}); err != nil {
			t.Fatal(err)
		}
		if h, ok := s.Requests()[0].Header["Authorization"]; ok {
			t.Errorf("Authorization header %q sent without a key", h)
		}
	})
	t.Run("anthropic", func(t *testing.T) {
		f, url := newFakeAnthropic(t, fakeAnswer{200, anthropicText})
		p, err := provider.New(agent.LLMConfig{Provider: "anthropic", BaseURL: url}, nil)
		if err != nil {
			t.Fatalf("New without a key but with base_url: %v", err)
		}
		if _, err := p.Complete(context.Background(), llm.Request{Params: llm.Params{Model: "m"}}); err != nil {
			t.Fatal(err)
		}
		for _, h := range []string{"X-Api-Key", "Authorization"} {
			if v, ok := f.headers[0][h]; ok {
				t.Errorf("%s header %q sent without a key", h, v)
			}
		}
	})
	t.Run("neither", func(t *testing.T) {
		_, err := provider.New(agent.LLMConfig{}, nil)
		if !errors.Is(err, provider.ErrNoAPIKey) || !strings.Contains(err.Error(), "DELTA_BASE_URL") {
			t.Fatalf("New with neither key nor URL: %v, want ErrNoAPIKey mentioning DELTA_BASE_URL", err)
		}
	})
}
