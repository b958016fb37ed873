package provider

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/deltakit/delta/lib/llm"
)

// responsesProvider is our client of OpenAI's Responses API, the default
// for openai: models on OpenAI's own endpoint. It always streams, so that
// the time limits tell a hung endpoint from a long answer; onText, when
// set, gets the text as it arrives.
type responsesProvider struct {
	remote
	// items keeps the encoded input items of the last request.
	items *messageCache
}

// Complete sends req to /responses, retrying transient failures.
func (p *responsesProvider) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	p.in.textOnly(&req)
	body, err := responsesBody(req, p.items)
	if err == nil {
		body, err = withExtra(body, req.Params.Extra)
	}
	if err != nil {
		return llm.Response{}, fmt.Errorf("%s: %w", p.ep.name, err)
	}
	return p.retry.do(ctx, p.ep, func(ctx context.Context) (llm.Response, error) {
		resp, err := p.post(ctx, "responses", body, true)
		if err != nil {
			return llm.Response{}, err
		}
		defer resp.Body.Close()
		url := resp.Request.URL.Redacted()
		if isEventStream(resp) {
			return p.readStream(resp.Body, url, req.OnText)
		}
		data, err := io.ReadAll(resp.Body)
		if err != nil {
			return llm.Response{}, p.streamBroke(url, err, llm.Response{})
		}
		var obj responseObject
		if err := decodeEvent(string(data), 1, "", &obj); err != nil {
			return llm.Response{}, &StreamError{Provider: p.ep.name, URL: url, Err: err}
		}
		return p.result(&obj)
	})
}

// responseObject is a response as the API returns it whole, and inside
// the response.completed, .incomplete and .failed events.
type responseObject struct {
	ID                string         `json:"id"`
	Model             string         `json:"model"`
	Status            string         `json:"status"`
	Output            []responseItem `json:"output"`
	Usage             *responseUsage `json:"usage"`
	Error             *responseError `json:"error"`
	IncompleteDetails *struct {
		Reason string `json:"reason"`
	} `json:"incomplete_details"`
}

// responseItem is one output item: a message, a function call, or
// reasoning.
type responseItem struct {
	Type string `json:"type"`
	ID   string `json:"id"`
	// message
	Content []struct {
		Type    string `json:"type"`
		Text    string `json:"text"`
		Refusal string `json:"refusal"`
	} `json:"content"`
	// function_call
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	// reasoning
	Summary []struct {
		Text string `json:"text"`
	} `json:"summary"`
	EncryptedContent string `json:"encrypted_content"`
}

type responseUsage struct {
	InputTokens        int64 `json:"input_tokens"`
	OutputTokens       int64 `json:"output_tokens"`
	InputTokensDetails struct {
		CachedTokens int64 `json:"cached_tokens"`
	} `json:"input_tokens_details"`
	OutputTokensDetails struct {
		ReasoningTokens int64 `json:"reasoning_tokens"`
	} `json:"output_tokens_details"`
}

// responseError is the error of a failed response, and the body of the
// stream's error event.
type responseError struct {
	Code    string `json:"code"`
	Type    string `json:"type"`
	Message string `json:"message"`
}

// result turns a finished response into llm.Response: the text of its
// messages, its function calls in order, and its reasoning items that
// can be sent back (those with encrypted content).
func (p *responsesProvider) result(o *responseObject) (llm.Response, error) {
	if o.Error != nil && o.Error.Message != "" {
		return llm.Response{}, p.eventAPIError(o.Error.Code, o.Error.Type, o.Error.Message)
	}
	r := llm.Response{ID: o.ID, Model: o.Model, FinishReason: "stop"}
	if o.Usage != nil {
		r.Usage = llm.Usage{InputTokens: o.Usage.InputTokens, OutputTokens: o.Usage.OutputTokens}
	}
	var text strings.Builder
	for _, it := range o.Output {
		switch it.Type {
		case "message":
			for _, c := range it.Content {
				text.WriteString(c.Text)
				text.WriteString(c.Refusal)
			}
		case "function_call":
			r.ToolCalls = append(r.ToolCalls, llm.ToolCall{ID: it.CallID, Name: it.Name, Arguments: argsOrEmpty(it.Arguments)})
		case reasoningType:
			if it.EncryptedContent == "" {
				continue
			}
			var sum []string
			for _, s := range it.Summary {
				sum = append(sum, s.Text)
			}
			r.Reasoning = append(r.Reasoning, llm.Reasoning{Type: reasoningType, ID: it.ID, Text: strings.Join(sum, "\n\n"), Data: it.EncryptedContent})
		}
	}
	r.Content = text.String()
	switch {
	case len(r.ToolCalls) > 0:
		r.FinishReason = "tool_calls"
	case o.Status == "incomplete" && o.IncompleteDetails != nil && o.IncompleteDetails.Reason == "max_output_tokens":
		r.FinishReason = "length"
	case o.Status == "incomplete" && o.IncompleteDetails != nil:
		r.FinishReason = o.IncompleteDetails.Reason
	}
	return r, nil
}

// responseEvent is the part of a stream event the client reads.
type responseEvent struct {
	Type     string          `json:"type"`
	Delta    string          `json:"delta"`
	Item     *responseItem   `json:"item"`
	Response *responseObject `json:"response"`
	// the error event's
	Code    string         `json:"code"`
	Message string         `json:"message"`
	Error   *responseError `json:"error"`
}

// readStream reads a Responses stream up to its response.completed (or
// .incomplete) event, whose response is the answer; the text deltas go to
// onText on the way. Output items that arrived one by one stand in for a
// finished response that lists none.
func (p *responsesProvider) readStream(body io.Reader, url string, onText func(string)) (llm.Response, error) {
	var partial llm.Response
	var items []responseItem
	sse := newSSEReader(body)
	for n := 1; ; n++ {
		ev, err := sse.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = errors.New("the stream ended before response.completed")
			}
			return llm.Response{}, p.streamBroke(url, err, partial)
		}
		var e responseEvent
		if err := decodeEvent(ev.Data, n, ev.Event, &e); err != nil {
			return llm.Response{}, &StreamError{Provider: p.ep.name, URL: url, Err: err, Partial: partial}
		}
		if e.Type == "" {
			e.Type = ev.Event
		}
		switch e.Type {
		case "response.output_text.delta":
			partial.Content += e.Delta
			if onText != nil && e.Delta != "" {
				onText(e.Delta)
			}
		case "response.output_item.done":
			if e.Item != nil {
				items = append(items, *e.Item)
			}
		case "response.completed", "response.incomplete", "response.failed":
			if e.Response == nil {
				return llm.Response{}, p.streamBroke(url, fmt.Errorf("event %d (%s) has no response", n, e.Type), partial)
			}
			if len(e.Response.Output) == 0 {
				e.Response.Output = items
			}
			if e.Type == "response.failed" && e.Response.Error == nil {
				e.Response.Error = &responseError{Code: "server_error", Message: "the response failed without saying why"}
			}
			return p.result(e.Response)
		case "error":
			if e.Error != nil {
				return llm.Response{}, p.eventAPIError(e.Error.Code, e.Error.Type, e.Error.Message)
			}
			return llm.Response{}, p.eventAPIError(e.Code, "", e.Message)
		}
	}
}
