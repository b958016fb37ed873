package provider

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/deltakit/delta/lib/llm"
)

// geminiResponse is a GenerateContentResponse: the whole answer, or one
// chunk of a stream (https://ai.google.dev/api/generate-content#response-body).
type geminiResponse struct {
	Candidates []struct {
		Content      geminiContent `json:"content"`
		FinishReason string        `json:"finishReason"`
	} `json:"candidates"`
	UsageMetadata *geminiUsage `json:"usageMetadata"`
	ModelVersion  string       `json:"modelVersion"`
	ResponseID    string       `json:"responseId"`
	Error         *geminiError `json:"error"`
}

// geminiUsage counts tokens: promptTokenCount includes the cached part,
// candidatesTokenCount leaves out the thinking, which is billed as output.
type geminiUsage struct {
	PromptTokenCount        int64 `json:"promptTokenCount"`
	CandidatesTokenCount    int64 `json:"candidatesTokenCount"`
	CachedContentTokenCount int64 `json:"cachedContentTokenCount"`
	ThoughtsTokenCount      int64 `json:"thoughtsTokenCount"`
}

// geminiFinish maps finish reasons onto the OpenAI names the journal uses;
// others (SAFETY, RECITATION …) are kept, lower-cased.
var geminiFinish = map[string]string{"STOP": "stop", "MAX_TOKENS": "length"}

// geminiAnswer adds chunks up to one llm.Response.
type geminiAnswer struct {
	r      llm.Response
	onText func(string)
	done   bool // a chunk gave the finish reason
}

func newGeminiAnswer(onText func(string)) *geminiAnswer { return &geminiAnswer{onText: onText} }

// add takes one chunk (or the whole answer).
func (a *geminiAnswer) add(p *geminiProvider, c *geminiResponse) error {
	if c.Error != nil {
		status := c.Error.Code
		if status == 0 {
			status = http.StatusInternalServerError
		}
		return geminiOverflow(p.ep.newAPIError(status, nil, c.Error.Status+": "+c.Error.Message))
	}
	if c.ResponseID != "" {
		a.r.ID = c.ResponseID
	}
	if c.ModelVersion != "" {
		a.r.Model = c.ModelVersion
	}
	if u := c.UsageMetadata; u != nil {
		a.r.Usage = llm.Usage{InputTokens: u.PromptTokenCount, OutputTokens: u.CandidatesTokenCount + u.ThoughtsTokenCount,
			CacheReadTokens: u.CachedContentTokenCount, ReasoningTokens: u.ThoughtsTokenCount}
	}
	if len(c.Candidates) == 0 {
		return nil
	}
	cand := c.Candidates[0]
	for _, part := range cand.Content.Parts {
		a.part(part)
	}
	if f := cand.FinishReason; f != "" {
		a.done = true
		a.r.FinishReason = strings.ToLower(f)
		if m, ok := geminiFinish[f]; ok {
			a.r.FinishReason = m
		}
		if f == "STOP" && len(a.r.ToolCalls) > 0 {
			a.r.FinishReason = "tool_calls"
		}
	}
	return nil
}

// part takes one part: a thought, text, or a function call, and the
// signature that came with it.
func (a *geminiAnswer) part(part geminiPart) {
	switch {
	case part.Thought:
		// A stream sends a thought in pieces: they make one thought.
		if n := len(a.r.Reasoning); n > 0 && a.r.Reasoning[n-1].Type == "thought" && a.r.Reasoning[n-1].Signature == "" {
			a.r.Reasoning[n-1].Text += deref(part.Text)
			a.r.Reasoning[n-1].Signature = part.ThoughtSignature
			return
		}
		a.r.Reasoning = append(a.r.Reasoning, llm.Reasoning{Type: "thought", Text: deref(part.Text), Signature: part.ThoughtSignature})
	case part.FunctionCall != nil:
		fc := part.FunctionCall
		if fc.ID == "" {
			fc.ID = newCallID()
		}
		a.r.ToolCalls = append(a.r.ToolCalls, llm.ToolCall{ID: fc.ID, Name: fc.Name, Arguments: argsOrEmpty(string(fc.Args))})
		if part.ThoughtSignature != "" {
			a.r.Reasoning = append(a.r.Reasoning, llm.Reasoning{Type: "thought_signature", Signature: part.ThoughtSignature, Data: fc.ID})
		}
	default:
		if t := deref(part.Text); t != "" {
			a.r.Content += t
			if a.onText != nil {
				a.onText(t)
			}
		}
		if part.ThoughtSignature != "" {
			a.textSignature(part.ThoughtSignature)
		}
	}
}

// textSignature keeps the signature of the text: one per answer, the last.
func (a *geminiAnswer) textSignature(sig string) {
	for i, r := range a.r.Reasoning {
		if r.Type == "thought_signature" && r.Data == "" {
			a.r.Reasoning[i].Signature = sig
			return
		}
	}
	a.r.Reasoning = append(a.r.Reasoning, llm.Reasoning{Type: "thought_signature", Signature: sig})
}

func (a *geminiAnswer) response() llm.Response {
	if a.r.FinishReason == "" && len(a.r.ToolCalls) > 0 {
		a.r.FinishReason = "tool_calls"
	}
	return a.r
}

// readStream decodes a streamGenerateContent?alt=sse answer from url:
// every event is a chunk. A stream that ends before a chunk gives the
// finish reason, stalls or holds an event that is not JSON is a
// *StreamError (retried) with the text that had arrived.
func (a *geminiAnswer) readStream(p *geminiProvider, body io.Reader, url string) (llm.Response, error) {
	sr := newSSEReader(body)
	for n := 1; ; n++ {
		ev, err := sr.Next()
		if errors.Is(err, io.EOF) && a.done {
			return a.response(), nil
		}
		if err != nil {
			return llm.Response{}, p.streamBroke(url, err, a.partial())
		}
		var c geminiResponse
		if err := decodeEvent(ev.Data, n, ev.Event, &c); err != nil {
			return llm.Response{}, &StreamError{Provider: p.ep.name, URL: url, Err: err, Partial: a.partial()}
		}
		if err := a.add(p, &c); err != nil {
			return llm.Response{}, err
		}
	}
}

// partial is what arrived of an answer that broke off: its text, without
// its function calls or thought signatures, which may be incomplete.
func (a *geminiAnswer) partial() llm.Response {
	r := a.r
	r.ToolCalls, r.Reasoning, r.FinishReason = nil, nil, ""
	return r
}

// newCallID names a function call Gemini gave no id, so that its result
// and its signature can find it.
func newCallID() string {
	var b [8]byte
	rand.Read(b[:])
	return "call_" + hex.EncodeToString(b[:])
}
