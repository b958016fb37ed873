package provider

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/deltakit/delta/lib/llm"
)

// messageCache keeps the wire encoding of the messages of the last
// request (Chat Completions messages, or Responses input items). A conversation sends every earlier message again
// at each turn: all but the newest are found here instead of being
// encoded again, which on a long run was the largest part of the engine's
// own work in an iteration. The body is byte for byte what encoding the
// whole request at once gives.
type messageCache struct {
	mu   sync.Mutex
	last []cachedMessage // the messages of the last request, in order
}

// cachedMessage is one message and its encoding. The message is kept
// whole: it is reused only for an equal message.
type cachedMessage struct {
	msg llm.Message
	enc []byte
}

func newMessageCache() *messageCache { return &messageCache{} }

// messagesField is how the request encodes without its messages; the
// array is put in its place. It cannot occur earlier: the only field
// before it is the model name, a JSON string whose quotes are escaped.
var messagesField = []byte(`,"messages":null`)

// openAIBody encodes req as a chat completions request body. With a
// cache, messages the last request also had are not encoded again (nil:
// every message is encoded).
func openAIBody(req llm.Request, cache *messageCache) ([]byte, error) {
	head, err := encodeRequestHead(req)
	if err != nil {
		return nil, err
	}
	encs, err := cache.encode(chatToolImages(req.Messages), encodeMessage)
	if err != nil {
		return nil, err
	}
	return spliceArray(head, messagesField, encs)
}

// spliceArray puts the array of encs in place of field (`,"name":null`)
// in head; an empty encoding (a message that sends nothing) is left out.
func spliceArray(head, field []byte, encs [][]byte) ([]byte, error) {
	at := bytes.Index(head, field)
	if at < 0 {
		return nil, fmt.Errorf("encode request: no %s in %.40q", field, head)
	}
	size := len(head) + 2
	for _, e := range encs {
		size += len(e) + 1
	}
	out := make([]byte, 0, size)
	out = append(out, head[:at]...)
	out = append(out, field[:len(field)-len("null")]...)
	out = append(out, '[')
	first := true
	for _, e := range encs {
		if len(e) == 0 {
			continue
		}
		if !first {
			out = append(out, ',')
		}
		out = append(out, e...)
		first = false
	}
	out = append(out, ']')
	return append(out, head[at+len(field):]...), nil
}

// encodeRequestHead encodes everything of req but its messages, which
// are null.
func encodeRequestHead(req llm.Request) ([]byte, error) {
	sp := req.Params
	body := chatRequest{
		Model:            sp.Model,
		Temperature:      sp.Temperature,
		MaxTokens:        sp.MaxTokens,
		TopP:             sp.TopP,
		FrequencyPenalty: sp.FrequencyPenalty,
		PresencePenalty:  sp.PresencePenalty,
		Stop:             sp.Stop,
		ReasoningEffort:  sp.ReasoningEffort,
		Seed:             sp.Seed,
	}
	if req.OnText != nil {
		body.Stream, body.StreamOptions = true, &streamOpts{IncludeUsage: true}
	}
	for _, t := range req.Tools {
		schema, err := schemaOf(t.Parameters)
		if err != nil {
			return nil, fmt.Errorf("tool %q: %w", t.Name, err)
		}
		body.Tools = append(body.Tools, chatTool{Type: "function", Function: chatToolDef{Name: t.Name, Description: t.Description, Parameters: schema}})
	}
	return encodeJSON(body)
}

// encodeJSON is json.Marshal without HTML escaping: the model gets its own
// text back byte for byte, "<" and "&" included.
func encodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// encode returns the encoding of each message, from the cache when the
// last request had the same message, and keeps these messages for the
// next request. The last request's messages are matched in order: a
// conversation that grew matches all of them, and one whose window slid
// (older iterations left out) matches again from the first message still
// there. A message that matches nothing, and every one after it, is
// encoded.
func (c *messageCache) encode(msgs []llm.Message, encodeOne func(*llm.Message) ([]byte, error)) ([][]byte, error) {
	out := make([][]byte, len(msgs))
	var last []cachedMessage
	if c != nil {
		c.mu.Lock()
		defer c.mu.Unlock()
		last = c.last
	}
	var next []cachedMessage
	if c != nil {
		next = make([]cachedMessage, len(msgs))
	}
	j, searching := 0, true
	for i := range msgs {
		m := &msgs[i]
		k := -1
		if j < len(last) && sameMessage(&last[j].msg, m) {
			k = j
		} else if searching {
			if k = indexMessage(last, j+1, m); k < 0 {
				searching = false
			}
		}
		if k >= 0 {
			out[i], j = last[k].enc, k+1
		} else {
			enc, err := encodeOne(m)
			if err != nil {
				return nil, fmt.Errorf("message %d: %w", i, err)
			}
			out[i] = enc
		}
		if next != nil {
			next[i] = cachedMessage{msg: *m, enc: out[i]}
		}
	}
	if c != nil {
		c.last = next
	}
	return out, nil
}

// indexMessage is the index of the first message of last from from on
// that is the same as m, or -1.
func indexMessage(last []cachedMessage, from int, m *llm.Message) int {
	for k := from; k < len(last); k++ {
		if len(last[k].msg.Content) == len(m.Content) && sameMessage(&last[k].msg, m) {
			return k
		}
	}
	return -1
}

// sameMessage reports whether a and b send the same.
func sameMessage(a, b *llm.Message) bool {
	return a.Role == b.Role && a.Content == b.Content && a.Name == b.Name && a.ToolCallID == b.ToolCallID &&
		slices.Equal(a.ToolCalls, b.ToolCalls) && slices.Equal(a.Reasoning, b.Reasoning) && sameParts(a.Parts, b.Parts)
}

// sameParts reports whether a and b are the same images and sounds.
func sameParts(a, b []llm.Part) bool {
	return slices.EqualFunc(a, b, func(p, q llm.Part) bool {
		return p.Type == q.Type && p.MediaType == q.MediaType && p.Path == q.Path && p.Size == q.Size && bytes.Equal(p.Data, q.Data)
	})
}

// encodeMessage is one message as the request's messages array holds it.
func encodeMessage(m *llm.Message) ([]byte, error) {
	cm, err := chatMessageOf(m)
	if err != nil {
		return nil, err
	}
	return encodeJSON(cm)
}
