package llmtest

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/deltakit/delta/lib/llm"
)

// Anthropic is a fake Anthropic Messages endpoint (POST /v1/messages),
// plain and streamed, that keeps a prompt cache the way the real API
// describes it: a request's prefix up to each cache_control breakpoint is
// written to the cache; a later request reads the longest cached prefix
// found at one of its breakpoints or up to 20 blocks before one; usage
// reports cache_read_input_tokens, cache_creation_input_tokens (from the
// cached prefix to the last breakpoint) and input_tokens (the rest). A
// block's tokens are its JSON length over four. More than four
// breakpoints is refused, as the API does.
type Anthropic struct {
	// URL is the base URL (without /v1), for ANTHROPIC_BASE_URL or llm.base_url.
	URL string

	mu       sync.Mutex
	queue    []reply
	requests []map[string]any
	usages   []llm.Usage
	cache    map[[32]byte]bool
}

// cacheLookback is how many blocks before a breakpoint the API checks for
// a cached prefix.
const cacheLookback = 20

// NewAnthropic starts a fake Anthropic endpoint closed when the test ends.
func NewAnthropic(t testing.TB) *Anthropic {
	t.Helper()
	s := &Anthropic{cache: map[[32]byte]bool{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/messages", s.serve)
	hs := httptest.NewServer(mux)
	t.Cleanup(hs.Close)
	s.URL = hs.URL
	return s
}

// Reply queues a model answer: its reasoning (thinking blocks), text and
// tool calls. Usage is counted by the fake; r.Usage is ignored.
func (s *Anthropic) Reply(r llm.Response) { s.push(reply{resp: r}) }

// Fail queues an HTTP error answer.
func (s *Anthropic) Fail(status int, body string) { s.push(reply{status: status, body: body}) }

func (s *Anthropic) push(r reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, r)
}

// Requests returns the request bodies received so far, decoded.
func (s *Anthropic) Requests() []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]map[string]any(nil), s.requests...)
}

// Usages returns the usage the fake reported for each answered request.
func (s *Anthropic) Usages() []llm.Usage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]llm.Usage(nil), s.usages...)
}

func (s *Anthropic) serve(w http.ResponseWriter, r *http.Request) {
	var body map[string]any
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		anthropicFail(w, 400, "invalid_request_error", "llmtest: request body is not JSON: "+err.Error())
		return
	}
	s.mu.Lock()
	s.requests = append(s.requests, body)
	if len(s.queue) == 0 {
		s.mu.Unlock()
		anthropicFail(w, 500, "api_error", "llmtest: no answer queued")
		return
	}
	rep := s.queue[0]
	s.queue = s.queue[1:]
	if rep.status != 0 {
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(rep.status)
		io.WriteString(w, rep.body)
		return
	}
	usage, err := s.account(body)
	if err == nil {
		usage.OutputTokens = outputTokens(rep.resp)
		s.usages = append(s.usages, usage)
	}
	n := len(s.requests)
	s.mu.Unlock()
	if err != nil {
		anthropicFail(w, 400, "invalid_request_error", err.Error())
		return
	}
	msg := anthropicAnswer(rep.resp, body["model"], n, usage)
	if body["stream"] == true {
		writeAnthropicStream(w, msg)
		return
	}
	writeJSON(w, msg)
}

// account finds the cached prefix of body, writes its breakpoints to the
// cache and returns the usage. The caller holds s.mu.
func (s *Anthropic) account(body map[string]any) (llm.Usage, error) {
	blocks := promptBlocks(body)
	var hashes [][32]byte
	var tokens []int64
	var breaks []int
	h := sha256.New()
	for i, b := range blocks {
		_, marked := b["cache_control"]
		if marked {
			breaks = append(breaks, i)
		}
		delete(b, "cache_control")
		enc, _ := json.Marshal(b)
		h.Write(enc)
		var sum [32]byte
		copy(sum[:], h.Sum(nil))
		hashes = append(hashes, sum)
		tokens = append(tokens, int64(max(1, len(enc)/4)))
	}
	if len(breaks) > 4 {
		return llm.Usage{}, fmt.Errorf("A maximum of 4 blocks with cache_control may be provided. Found %d.", len(breaks))
	}
	hit := -1 // the last block of the longest cached prefix
	for _, b := range breaks {
		for i := b; i >= 0 && i > b-cacheLookback; i-- {
			if s.cache[hashes[i]] {
				hit = max(hit, i)
				break
			}
		}
	}
	last := -1
	if len(breaks) > 0 {
		last = breaks[len(breaks)-1]
	}
	var u llm.Usage
	for i, t := range tokens {
		u.InputTokens += t
		switch {
		case i <= hit:
			u.CacheReadTokens += t
		case i <= last:
			u.CacheWriteTokens += t
		}
	}
	for _, b := range breaks {
		s.cache[hashes[b]] = true
	}
	return u, nil
}

// promptBlocks are the blocks of the prompt in the order the cache sees
// them: tools, system, then every message's content blocks (each tagged
// with its role, so the same text in another turn differs).
func promptBlocks(body map[string]any) []map[string]any {
	var out []map[string]any
	add := func(v any, role string) {
		if m, ok := v.(map[string]any); ok {
			m = maps.Clone(m) // the recorded request stays as it came
			if role != "" {
				m["role"] = role
			}
			out = append(out, m)
		}
	}
	for _, t := range asList(body["tools"]) {
		add(t, "")
	}
	if sys, ok := body["system"].(string); ok {
		add(map[string]any{"type": "text", "text": sys}, "")
	}
	for _, b := range asList(body["system"]) {
		add(b, "")
	}
	for _, m := range asList(body["messages"]) {
		msg, _ := m.(map[string]any)
		role, _ := msg["role"].(string)
		if text, ok := msg["content"].(string); ok {
			add(map[string]any{"type": "text", "text": text}, role)
			continue
		}
		for _, b := range asList(msg["content"]) {
			add(b, role)
		}
	}
	return out
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

// outputTokens counts an answer like the prompt: its JSON length over four.
func outputTokens(r llm.Response) int64 {
	enc, _ := json.Marshal(r)
	return int64(max(1, len(r.Content)/4+(len(enc)-len(r.Content))/16))
}

func anthropicFail(w http.ResponseWriter, status int, typ, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}})
	w.Write(b)
}
