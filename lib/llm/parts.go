package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Kinds of a Part.
const (
	PartImage = "image"
	PartAudio = "audio"
)

// Part is a piece of a message that is not its text: an image or a sound
// a tool produced (read_file of a PNG, an MCP server's screenshot). A
// message's Content stays its text, so the many places that only deal
// in text never see parts; the providers put the parts after it, each in
// its API's own encoding.
type Part struct {
	// Type is PartImage or PartAudio.
	Type string `json:"type"`
	// MediaType is the IANA media type of Data: image/png, image/jpeg,
	// image/gif, image/webp, audio/wav …
	MediaType string `json:"media_type"`
	// Data is the file's bytes: base64 in JSON, but for a part with a
	// Path, whose JSON names the file instead (an io/ record or a hook's
	// payload would otherwise repeat every image of the conversation at
	// each model call).
	Data []byte `json:"data,omitempty"`
	// Path is where the bytes are kept, relative to the run directory
	// (the call's io/ record): the journal names the file, and the text
	// that stands for the part where it cannot be sent says where it is.
	Path string `json:"path,omitempty"`
	// Size is the length of the data in bytes, known also when Data has
	// not been loaded.
	Size int64 `json:"bytes,omitempty"`
}

// MarshalJSON leaves out the data of a part kept in a file (see Data).
func (p Part) MarshalJSON() ([]byte, error) {
	type plain Part // without the method
	if p.Path != "" {
		p.Data = nil
	}
	// Without HTML escaping, as every encoder of Delta's files writes.
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(plain(p)); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// Placeholder is the line that stands for the part where it is not sent
// (a model without image input) or not printed (delta-context's text
// output): "[image: image/png, 4033 bytes, io/…/image-1.png]".
func (p Part) Placeholder() string {
	size := p.Size
	if size == 0 {
		size = int64(len(p.Data))
	}
	s := fmt.Sprintf("[%s: %s, %d bytes", p.Type, p.MediaType, size)
	if p.Path != "" {
		s += ", " + p.Path
	}
	return s + "]"
}

// Inputs are the kinds of parts a model takes besides text.
type Inputs struct {
	Images bool
	Audio  bool
}

// ModelInputs are the inputs of common model families, matched as
// ContextWindows are (a dated snapshot by its family, an
// OpenRouter-style "openai/gpt-4o" by its last element). A model the
// table does not know gets text only: an image is then a line saying
// what it was, never an error. agent.yaml's llm.images overrides the
// table for a model it does not know (a local vision model).
var ModelInputs = map[string]Inputs{
	"gpt-4o":        {Images: true},
	"gpt-4o-mini":   {Images: true},
	"chatgpt-4o":    {Images: true},
	"gpt-4-turbo":   {Images: true},
	"gpt-4.1":       {Images: true},
	"gpt-5":         {Images: true},
	"gpt-5-codex":   {Images: true},
	"codex-mini":    {Images: true},
	"o1":            {Images: true},
	"o1-mini":       {},
	"o3":            {Images: true},
	"o3-mini":       {},
	"o4-mini":       {Images: true},
	"claude-3":      {Images: true},
	"claude-opus":   {Images: true},
	"claude-sonnet": {Images: true},
	"claude-haiku":  {Images: true},
	// Gemini takes sound as it takes images: inline data parts.
	"gemini": {Images: true, Audio: true},
}

// InputsOf is what model takes besides text, from ModelInputs.
func InputsOf(model string) Inputs {
	in, _ := lookup(ModelInputs, model)
	return in
}

// TextOnly returns msgs with every part in that in does not take
// replaced by its placeholder line, appended to the message's text; msgs
// itself when nothing needs replacing (the common case costs no copy).
func TextOnly(msgs []Message, in Inputs) []Message {
	var out []Message
	for i := range msgs {
		if !needsText(msgs[i].Parts, in) {
			continue
		}
		if out == nil {
			out = append([]Message(nil), msgs...)
		}
		m := &out[i]
		var kept []Part
		lines := []string{}
		if m.Content != "" {
			lines = append(lines, strings.TrimRight(m.Content, "\n"))
		}
		for _, p := range m.Parts {
			if accepts(p, in) {
				kept = append(kept, p)
				continue
			}
			why := " (not shown: this model does not take " + p.Type + " input)"
			if len(p.Data) == 0 {
				why = " (not shown: its file is missing)"
			}
			lines = append(lines, p.Placeholder()+why)
		}
		m.Content, m.Parts = strings.Join(lines, "\n"), kept
	}
	if out == nil {
		return msgs
	}
	return out
}

func needsText(parts []Part, in Inputs) bool {
	for _, p := range parts {
		if !accepts(p, in) {
			return true
		}
	}
	return false
}

func accepts(p Part, in Inputs) bool {
	switch p.Type {
	case PartImage:
		return in.Images && len(p.Data) > 0
	case PartAudio:
		return in.Audio && len(p.Data) > 0
	}
	return false
}
