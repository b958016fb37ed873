package provider

import (
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/deltakit/delta/lib/llm"
)

// anthropicMessage is a message of the request, and the Message object of
// an answer (https://docs.anthropic.com/en/api/messages).
type anthropicMessage struct {
	ID         string           `json:"id,omitempty"`
	Role       string           `json:"role"`
	Model      string           `json:"model,omitempty"`
	Content    []anthropicBlock `json:"content"`
	StopReason string           `json:"stop_reason,omitempty"`
	Usage      *anthropicUsage  `json:"usage,omitempty"`
}

// anthropicUsage counts tokens: input_tokens is only the input after the
// last cache breakpoint, so the whole prompt is the sum of the three.
type anthropicUsage struct {
	InputTokens              int64 `json:"input_tokens"`
	OutputTokens             int64 `json:"output_tokens"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
}

func (u *anthropicUsage) usage() llm.Usage {
	if u == nil {
		return llm.Usage{}
	}
	return llm.Usage{
		InputTokens:      u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens,
		OutputTokens:     u.OutputTokens,
		CacheReadTokens:  u.CacheReadInputTokens,
		CacheWriteTokens: u.CacheCreationInputTokens,
	}
}

// anthropicFinish maps stop reasons onto the OpenAI names the journal uses.
var anthropicFinish = map[string]string{
	"end_turn":      "stop",
	"stop_sequence": "stop",
	"tool_use":      "tool_calls",
	"max_tokens":    "length",
}

func (m *anthropicMessage) response() llm.Response {
	r := llm.Response{ID: m.ID, Model: m.Model, Usage: m.Usage.usage(), FinishReason: m.StopReason}
	if f, ok := anthropicFinish[m.StopReason]; ok {
		r.FinishReason = f
	}
	for _, b := range m.Content {
		switch b.Type {
		case "text":
			if b.Text != nil {
				r.Content += *b.Text
			}
		case "tool_use":
			r.ToolCalls = append(r.ToolCalls, llm.ToolCall{ID: b.ID, Name: b.Name, Arguments: argsOrEmpty(string(b.Input))})
		case "thinking":
			r.Reasoning = append(r.Reasoning, llm.Reasoning{Type: b.Type, Text: deref(b.Thinking), Signature: deref(b.Signature)})
		case "redacted_thinking":
			r.Reasoning = append(r.Reasoning, llm.Reasoning{Type: b.Type, Data: b.Data})
		}
	}
	return r
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// anthropicEvent is one event of a streamed answer
// (https://docs.anthropic.com/en/docs/build-with-claude/streaming).
type anthropicEvent struct {
	Type         string            `json:"type"`
	Message      *anthropicMessage `json:"message"`
	Index        int               `json:"index"`
	ContentBlock *anthropicBlock   `json:"content_block"`
	Delta        struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		PartialJSON string `json:"partial_json"`
		Thinking    string `json:"thinking"`
		Signature   string `json:"signature"`
		StopReason  string `json:"stop_reason"`
	} `json:"delta"`
	Usage *anthropicUsage `json:"usage"`
	Error *struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

// streamState adds a stream's events up to the Message a plain call
// returns.
type streamState struct {
	msg    anthropicMessage
	inputs map[int][]byte // tool_use input_json_delta pieces by block index
	onText func(string)
	done   bool
}

// readStream decodes a streamed answer from url. onText gets each piece
// of text as it arrives. A stream that ends before message_stop, stalls
// or holds an event that is not JSON is a *StreamError (retried) with the
// text that had arrived; an error event is an *APIError of the status its
// type stands for.
func (p *anthropicProvider) readStream(body io.Reader, url string, onText func(string)) (llm.Response, error) {
	st := &streamState{inputs: map[int][]byte{}, onText: onText}
	sr := newSSEReader(body)
	for n := 1; !st.done; n++ {
		ev, err := sr.Next()
		if err != nil {
			return llm.Response{}, p.streamBroke(url, err, st.partial())
		}
		if err := st.add(ev.Data, n, ev.Event); err != nil {
			var ae *APIError
			var se *syntaxError
			switch {
			case errors.As(err, &ae): // an error event: made whole, key removed
				return llm.Response{}, p.ep.newAPIError(ae.Status, nil, ae.Message)
			case errors.As(err, &se):
				return llm.Response{}, &StreamError{Provider: p.ep.name, URL: url, Err: err, Partial: st.partial()}
			}
			return llm.Response{}, p.redacted(err)
		}
	}
	return st.response(), nil
}

// add takes event n's data (name: its SSE event name, if any).
func (st *streamState) add(data string, n int, name string) error {
	var ev anthropicEvent
	if err := decodeEvent(data, n, name, &ev); err != nil {
		return err
	}
	switch ev.Type {
	case "message_start":
		if ev.Message != nil {
			st.msg = *ev.Message
		}
	case "content_block_start":
		if ev.ContentBlock == nil || ev.Index != len(st.msg.Content) {
			return fmt.Errorf("the answer stream starts content block %d out of order", ev.Index)
		}
		st.msg.Content = append(st.msg.Content, *ev.ContentBlock)
	case "content_block_delta":
		return st.delta(&ev)
	case "message_delta":
		st.msg.StopReason = ev.Delta.StopReason
		st.mergeUsage(ev.Usage)
	case "message_stop":
		st.done = true
	case "error":
		if ev.Error == nil {
			return fmt.Errorf("the answer stream reports an error without saying which: %s", clipEvent(data))
		}
		status, ok := anthropicErrorStatus[ev.Error.Type]
		if !ok {
			status = http.StatusInternalServerError
		}
		return &APIError{Status: status, Message: ev.Error.Type + ": " + ev.Error.Message}
	}
	// ping and event types added later are ignored, as the API asks.
	return nil
}

// delta applies a content_block_delta to its block.
func (st *streamState) delta(ev *anthropicEvent) error {
	if ev.Index < 0 || ev.Index >= len(st.msg.Content) {
		return fmt.Errorf("the answer stream has a delta for content block %d, which never started", ev.Index)
	}
	b := &st.msg.Content[ev.Index]
	switch d := ev.Delta; d.Type {
	case "text_delta":
		b.Text = appendPtr(b.Text, d.Text)
		if d.Text != "" {
			st.onText(d.Text)
		}
	case "input_json_delta":
		st.inputs[ev.Index] = append(st.inputs[ev.Index], d.PartialJSON...)
	case "thinking_delta":
		b.Thinking = appendPtr(b.Thinking, d.Thinking)
	case "signature_delta":
		b.Signature = appendPtr(b.Signature, d.Signature)
	}
	return nil
}

// mergeUsage takes message_delta's usage: its counts are cumulative, and
// a count it leaves out keeps message_start's value.
func (st *streamState) mergeUsage(u *anthropicUsage) {
	if u == nil {
		return
	}
	if st.msg.Usage == nil {
		st.msg.Usage = &anthropicUsage{}
	}
	to := st.msg.Usage
	for _, f := range []struct{ from, to *int64 }{{&u.InputTokens, &to.InputTokens}, {&u.OutputTokens, &to.OutputTokens},
		{&u.CacheCreationInputTokens, &to.CacheCreationInputTokens}, {&u.CacheReadInputTokens, &to.CacheReadInputTokens}} {
		if *f.from != 0 {
			*f.to = *f.from
		}
	}
}

// response is the answer so far: tool inputs are the concatenation of
// their pieces (the start block's input when none came).
func (st *streamState) response() llm.Response {
	for i, in := range st.inputs {
		if len(in) > 0 {
			st.msg.Content[i].Input = in
		}
	}
	return st.msg.response()
}

// partial is what arrived of an answer that broke off: its text, without
// its tool calls (whose inputs may be cut) or its reasoning (whose
// signature may be missing).
func (st *streamState) partial() llm.Response {
	r := st.response()
	r.ToolCalls, r.Reasoning, r.FinishReason = nil, nil, ""
	return r
}

func appendPtr(s *string, more string) *string {
	v := deref(s) + more
	return &v
}

// clipEvent shortens an event quoted in an error.
func clipEvent(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}
