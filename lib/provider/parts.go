package provider

import (
	"encoding/base64"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/llm"
)

// The images and sounds of a message (llm.Part) go to each API in its own
// encoding (see the wire files); a model that does not take them gets
// the line llm.Part.Placeholder instead, never an error. What a model
// takes is llm.InputsOf its name, or agent.yaml's llm.images.

// inputs is what the model of a request takes besides text.
type inputs struct {
	// images is llm.images, nil when agent.yaml does not say.
	images *bool
}

func inputsFrom(cfg agent.LLMConfig) inputs { return inputs{images: cfg.Images} }

// of is what model takes.
func (in inputs) of(model string) llm.Inputs {
	got := llm.InputsOf(model)
	if in.images != nil {
		got.Images = *in.images
	}
	return got
}

// textOnly replaces in req the parts its model does not take by their
// placeholder lines.
func (in inputs) textOnly(req *llm.Request) {
	req.Messages = llm.TextOnly(req.Messages, in.of(req.Params.Model))
}

// dataURL is a part as a data: URL, the form OpenAI's APIs take inline
// images in.
func dataURL(p llm.Part) string {
	return "data:" + p.MediaType + ";base64," + base64.StdEncoding.EncodeToString(p.Data)
}
