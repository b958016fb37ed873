package provider

import (
	"encoding/json"
	"errors"
	"io"

	"github.com/deltakit/delta/lib/llm"
)

// chatChunk is one chat.completion.chunk event of a stream.
type chatChunk struct {
	ID      string `json:"id"`
	Model   string `json:"model"`
	Choices []struct {
		Index int `json:"index"`
		Delta struct {
			Content   string `json:"content"`
			ToolCalls []struct {
				Index    *int   `json:"index"`
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *chatUsage      `json:"usage"`
	Error json.RawMessage `json:"error"`
}

// chatAccumulator adds a stream's chunks up to the answer a request
// without "stream" gets.
type chatAccumulator struct {
	resp     llm.Response
	calls    []llm.ToolCall
	byIndex  map[int]int // a tool call's index in the stream → calls
	finished bool        // a finish_reason arrived
}

// readChatStream reads a chat completions stream: onText gets the text
// as it arrives. The stream ends with "data: [DONE]"; a server that
// closes it after the finish reason without one is accepted too.
func (p *chatProvider) readChatStream(body io.Reader, url string, onText func(string)) (llm.Response, error) {
	acc := chatAccumulator{byIndex: map[int]int{}}
	sse := newSSEReader(body)
	for n := 1; ; n++ {
		ev, err := sse.Next()
		if errors.Is(err, io.EOF) && acc.finished {
			return acc.result(), nil
		}
		if err != nil {
			return llm.Response{}, p.streamBroke(url, err, acc.partial())
		}
		if ev.Data == "[DONE]" {
			if !acc.finished {
				return llm.Response{}, p.streamBroke(url, errors.New("[DONE] before any finish reason"), acc.partial())
			}
			return acc.result(), nil
		}
		var c chatChunk
		if err := decodeEvent(ev.Data, n, ev.Event, &c); err != nil {
			return llm.Response{}, &StreamError{Provider: p.ep.name, URL: url, Err: err, Partial: acc.partial()}
		}
		if len(c.Error) > 0 && string(c.Error) != "null" {
			return llm.Response{}, p.chatErrorEvent(c.Error)
		}
		acc.add(&c, onText)
	}
}

// add takes one chunk in; only the first choice is kept.
func (a *chatAccumulator) add(c *chatChunk, onText func(string)) {
	if c.ID != "" {
		a.resp.ID = c.ID
	}
	if c.Model != "" {
		a.resp.Model = c.Model
	}
	if c.Usage != nil {
		a.resp.Usage = c.Usage.usage()
	}
	for _, ch := range c.Choices {
		if ch.Index != 0 {
			continue
		}
		if ch.Delta.Content != "" {
			a.resp.Content += ch.Delta.Content
			if onText != nil {
				onText(ch.Delta.Content)
			}
		}
		for _, tc := range ch.Delta.ToolCalls {
			a.addCall(tc.Index, tc.ID, tc.Function.Name, tc.Function.Arguments)
		}
		if ch.FinishReason != nil && *ch.FinishReason != "" {
			a.resp.FinishReason, a.finished = *ch.FinishReason, true
		}
	}
}

// addCall adds a piece of a tool call: the first piece of a call has its
// id and name, later ones more of its arguments, matched by index. A
// server that numbers every call 0 (some do) starts a new call with each
// new id.
func (a *chatAccumulator) addCall(index *int, id, name, args string) {
	i := len(a.calls)
	if index != nil {
		i = *index
	}
	k, ok := a.byIndex[i]
	if ok && id != "" && a.calls[k].ID != "" && a.calls[k].ID != id {
		ok = false
	}
	if !ok {
		a.calls = append(a.calls, llm.ToolCall{})
		k = len(a.calls) - 1
		a.byIndex[i] = k
	}
	c := &a.calls[k]
	if id != "" {
		c.ID = id
	}
	if name != "" {
		c.Name = name
	}
	c.Arguments += args
}

// result is the whole answer.
func (a *chatAccumulator) result() llm.Response {
	r := a.resp
	for _, c := range a.calls {
		c.Arguments = argsOrEmpty(c.Arguments)
		r.ToolCalls = append(r.ToolCalls, c)
	}
	return r
}

// partial is what arrived of an answer that broke off: its text, and
// none of its tool calls, whose arguments may be cut.
func (a *chatAccumulator) partial() llm.Response {
	r := a.resp
	r.FinishReason = ""
	return r
}
