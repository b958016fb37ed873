package provider_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/provider"
)

func TestProbe(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/v1/models" && r.Header.Get("Authorization") == "Bearer "+testKey:
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"data":[]}`)
		case r.URL.Path == "/v1/v1/models" && r.Header.Get("x-api-key") == testKey && r.Header.Get("anthropic-version") != "":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"data":[]}`)
		case strings.HasSuffix(r.URL.Path, "/models") && strings.HasPrefix(r.URL.Path, "/v1"):
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, `{"error":{"message":"bad key"}}`)
		default:
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<html>home</html>")
		}
	}))
	defer srv.Close()
	tests := []struct {
		name     string
		cfg      agent.LLMConfig
		env      map[string]string
		wantOK   string
		wantErr  string
		wantAuth bool
	}{
		{"openai ok", agent.LLMConfig{Provider: "openai"}, map[string]string{"DELTA_API_KEY": testKey, "DELTA_BASE_URL": srv.URL + "/v1"}, "openai at " + srv.URL + "/v1 answers (key from DELTA_API_KEY)", "", false},
		{"anthropic ok", agent.LLMConfig{Provider: "anthropic"}, map[string]string{"ANTHROPIC_API_KEY": testKey, "ANTHROPIC_BASE_URL": srv.URL + "/v1"}, "key from ANTHROPIC_API_KEY", "", false},
		{"bad key", agent.LLMConfig{Provider: "openai"}, map[string]string{"OPENAI_API_KEY": "wrong", "OPENAI_BASE_URL": srv.URL + "/v1"}, "", "HTTP 401", true},
		{"no /v1", agent.LLMConfig{Provider: "openai"}, map[string]string{"DELTA_API_KEY": testKey, "DELTA_BASE_URL": srv.URL}, "", "check DELTA_BASE_URL (does it end in /v1?)", false},
		{"no key", agent.LLMConfig{Provider: "openai"}, map[string]string{}, "", "no API key", false},
		{"unreachable", agent.LLMConfig{Provider: "openai"}, map[string]string{"DELTA_API_KEY": testKey, "DELTA_BASE_URL": "http://127.0.0.1:1/v1"}, "", "cannot reach http://127.0.0.1:1/v1/models", false},
		{"scripted", agent.LLMConfig{Provider: "scripted"}, nil, "offline", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := provider.Probe(context.Background(), tt.cfg, tt.env)
			if tt.wantErr == "" {
				if err != nil || !strings.Contains(got, tt.wantOK) {
					t.Errorf("Probe() = %q, %v, want %q", got, err, tt.wantOK)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || errors.Is(err, provider.ErrAuth) != tt.wantAuth {
				t.Errorf("Probe() error = %v, want one containing %q (auth %v)", err, tt.wantErr, tt.wantAuth)
			}
			if err != nil && strings.Contains(err.Error(), testKey) {
				t.Errorf("Probe() error %q leaks the key", err)
			}
		})
	}
}
