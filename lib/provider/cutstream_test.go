package provider_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/provider"
)

// geminiChunk is one event of a Gemini stream with text, and the finish
// reason when finish is set.
func geminiChunk(text string, finish bool) string {
	end := ""
	if finish {
		end = `,"finishReason":"STOP"`
	}
	return `data: {"candidates":[{"content":{"role":"model","parts":[{"text":"` + text + `"}]}` + end + `}]}` + "\n\n"
}

// The native protocols keep the partial text of a stream cut or corrupted
// mid-answer, as the OpenAI ones do (TestBrokenStreamsRetried): the
// attempt fails with a StreamError naming the endpoint and holding the
// text that had arrived (no half-made tool call), and is retried; the
// retry's answer is the result.
func TestNativeBrokenStreamsKeepPartial(t *testing.T) {
	protocols := []struct {
		name, partial string
		cut, full     string
		newProvider   func(t *testing.T, url string) llm.Provider
		want          string
	}{
		{"anthropic", "Hello", sseStart + sseText, sseStart + sseText + sseEnd, newAnthropicProvider, "Hello"},
		{"gemini", "Hi ", geminiChunk("Hi ", false), geminiChunk("Hi ", false) + geminiChunk("there", true), newGeminiProvider, "Hi there"},
	}
	for _, pr := range protocols {
		for _, kind := range []string{"cut", "corrupt"} {
			t.Run(pr.name+"/"+kind, func(t *testing.T) {
				recordRetries(t)
				first := pr.cut
				if kind == "corrupt" {
					first += "data: {nope\n\n"
				}
				url, requests := sseServer(t, first, pr.full)
				var retries []provider.RetryEvent
				var partials []llm.PartialAnswer
				ctx := provider.WithRetryNotify(context.Background(), func(ev provider.RetryEvent) { retries = append(retries, ev) })
				ctx = llm.WithPartialNotify(ctx, func(p llm.PartialAnswer) { partials = append(partials, p) })
				got, err := pr.newProvider(t, url).Complete(ctx, llm.Request{Params: llm.Params{Model: "m"},
					Messages: []llm.Message{{Role: "user", Content: "hi"}}, OnText: func(string) {}})
				if err != nil || got.Content != pr.want || requests() != 2 {
					t.Fatalf("Complete = %q, %v after %d requests, want the retry's answer %q", got.Content, err, requests(), pr.want)
				}
				if len(retries) != 1 {
					t.Fatalf("%d retries, want 1", len(retries))
				}
				var se *provider.StreamError
				if !errors.As(retries[0].Err, &se) {
					t.Fatalf("retry error = %v, want a StreamError", retries[0].Err)
				}
				if se.Partial.Content != pr.partial || len(se.Partial.ToolCalls) > 0 {
					t.Errorf("partial answer = %+v, want the text %q alone", se.Partial, pr.partial)
				}
				// The text is handed to the caller (the engine journals it).
				if len(partials) != 1 || partials[0].Text != pr.partial || partials[0].Attempt != 1 {
					t.Errorf("partial answers reported %+v, want the text %q of attempt 1", partials, pr.partial)
				}
				msg := se.Error()
				if !strings.Contains(msg, url) {
					t.Errorf("error %q does not name the endpoint", msg)
				}
				if kind == "corrupt" && !strings.Contains(msg, "is corrupt") {
					t.Errorf("error %q does not say the answer is corrupt", msg)
				}
			})
		}
	}
}

// The stream time limits hold on every protocol, since every client posts
// through the same path: an endpoint that sends nothing fails on the
// first-byte limit, one that stops mid-stream on the idle limit; each
// error names its setting and the endpoint, and the attempt is retried.
func TestStreamTimeLimitsEveryProtocol(t *testing.T) {
	limits := []struct {
		name    string
		first   string // what the server sends before hanging
		setting string
	}{
		{"first byte", "", "llm.first_byte_timeout_ms"},
		{"idle", ": thinking\n\n", "llm.idle_timeout_ms"},
	}
	for _, cfg := range []agent.LLMConfig{{Provider: "openai"}, {Provider: "openai", API: "responses"}, {Provider: "anthropic"}, {Provider: "gemini"}} {
		for _, lim := range limits {
			t.Run(cfg.Provider+cfg.API+"/"+lim.name, func(t *testing.T) {
				recordRetries(t)
				url, requests := stallingServer(t, lim.first)
				ms := int64(50)
				cfg.BaseURL, cfg.FirstByteTimeoutMS, cfg.IdleTimeoutMS = url, &ms, &ms
				p, err := provider.New(cfg, map[string]string{"DELTA_API_KEY": testKey, provider.EnvRetryAttempts: "2"})
				if err != nil {
					t.Fatal(err)
				}
				_, err = p.Complete(context.Background(), llm.Request{Params: llm.Params{Model: "m"},
					Messages: []llm.Message{{Role: "user", Content: "hi"}}, OnText: func(string) {}})
				var te *provider.TimeoutError
				if !errors.As(err, &te) || te.Setting != lim.setting {
					t.Fatalf("Complete error = %v, want a TimeoutError of %s", err, lim.setting)
				}
				if !strings.Contains(err.Error(), lim.setting) || !strings.Contains(err.Error(), url) {
					t.Errorf("error %q does not name the setting and the endpoint", err)
				}
				if n := requests(); n != 2 {
					t.Errorf("%d requests, want 2 (a timed-out stream is retried)", n)
				}
			})
		}
	}
}

// stallingServer answers every request with an event stream that sends
// first and then nothing more, until the client hangs up.
func stallingServer(t *testing.T, first string) (string, func() int) {
	t.Helper()
	done := make(chan struct{})
	requests := make(chan struct{}, 10)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		requests <- struct{}{}
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, first)
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-done:
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(done) }) // runs first: no handler outlives the test
	return srv.URL, func() int { return len(requests) }
}
