package provider_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/provider"
)

// An endpoint that answers with a web page (a base URL without /v1, a
// proxy's home page) is reported as such, with the setting to check, and
// is not retried unless its status is transient.
func TestPageAnswers(t *testing.T) {
	tests := []struct {
		provider, contentType string
		status, wantTries     int
		wantHint              string
	}{
		{"openai", "text/html", 200, 1, "check DELTA_BASE_URL (does it end in /v1?)"},
		{"openai", "text/plain", 404, 1, "check DELTA_BASE_URL (does it end in /v1?)"},
		{"openai", "text/html; charset=utf-8", 501, 1, "check DELTA_BASE_URL"},
		{"openai", "text/html", 502, 4, ""},
		{"anthropic", "text/html", 200, 1, "check DELTA_BASE_URL (the API's root"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s %d %s", tt.provider, tt.status, tt.contentType), func(t *testing.T) {
			recordRetries(t)
			var tries atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				tries.Add(1)
				w.Header().Set("Content-Type", tt.contentType)
				w.WriteHeader(tt.status)
				fmt.Fprint(w, "<html><body>Welcome to nginx</body></html>")
			}))
			defer srv.Close()
			p, err := provider.New(agent.LLMConfig{Provider: tt.provider, Model: "m"},
				map[string]string{"DELTA_API_KEY": testKey, "DELTA_BASE_URL": srv.URL})
			if err != nil {
				t.Fatal(err)
			}
			_, err = p.Complete(context.Background(), llm.Request{Params: llm.Params{Model: "m"}, Messages: []llm.Message{{Role: "user", Content: "hi"}}})
			var ae *provider.APIError
			if !errors.As(err, &ae) || ae.Status != tt.status {
				t.Fatalf("Complete() error = %v, want an APIError with status %d", err, tt.status)
			}
			if !strings.Contains(err.Error(), "not the API's JSON") || !strings.Contains(err.Error(), tt.wantHint) {
				t.Errorf("Complete() error = %q, want it to say it is not the API and %q", err, tt.wantHint)
			}
			if tt.wantHint == "" && ae.Hint != "" {
				t.Errorf("transient status got hint %q, want none", ae.Hint)
			}
			if got := int(tries.Load()); got != tt.wantTries {
				t.Errorf("requests = %d, want %d", got, tt.wantTries)
			}
		})
	}
}

// Statuses that answer the same every time are not retried.
func TestNoRetryOnPermanentServerStatus(t *testing.T) {
	for _, status := range []int{501, 505} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			waits := recordRetries(t)
			var tries atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				tries.Add(1)
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(status)
				fmt.Fprint(w, `{"error":{"message":"no"}}`)
			}))
			defer srv.Close()
			p, _ := provider.New(agent.LLMConfig{Provider: "openai", Model: "m"},
				map[string]string{"DELTA_API_KEY": testKey, "DELTA_BASE_URL": srv.URL})
			_, err := p.Complete(context.Background(), llm.Request{Params: llm.Params{Model: "m"}})
			if err == nil || tries.Load() != 1 || len(waits()) != 0 {
				t.Errorf("Complete() = %v after %d requests and %d waits, want an error after 1 request", err, tries.Load(), len(waits()))
			}
		})
	}
}
