package tool

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/deltakit/delta/lib/llm"
)

// AskHumanName is the name of the built-in ask_human tool.
const AskHumanName = "ask_human"

// Schema returns the JSON Schema of a tool's arguments object as the model
// sees it: every parameter a string property with its description, the
// required ones listed, no other properties allowed. Properties keep the
// definition order. A default is given as "default" and also named in the
// description, which every provider passes on, so the model knows what
// leaving the argument out means.
func Schema(t Tool) json.RawMessage {
	props := make([]property, len(t.Parameters))
	var required []string
	for i, p := range t.Parameters {
		props[i] = property{Name: p.Name, Type: "string", Description: p.Description, Default: p.Default}
		if p.Default != nil {
			d, _ := json.Marshal(*p.Default)
			props[i].Description = strings.TrimSpace(p.Description + " (default: " + string(d) + ")")
		}
		if p.Required {
			required = append(required, p.Name)
		}
	}
	return objectSchema(props, required)
}

// Spec returns the tool as the model sees it.
func Spec(t Tool) llm.ToolSpec {
	return llm.ToolSpec{Name: t.Name, Description: t.Description, Parameters: Schema(t)}
}

// AskHumanSpec is the built-in ask_human tool of seeds/000 §2.5.1; the
// engine offers exactly this spec to the model.
func AskHumanSpec() llm.ToolSpec {
	return llm.ToolSpec{
		Name:        AskHumanName,
		Description: "Request input from human user. Execution pauses until response received.",
		Parameters: objectSchema([]property{
			{Name: "prompt", Type: "string", Description: "Question or instruction to display to user"},
			{Name: "input_type", Type: "string", Description: "Input type: text | password | confirmation", Enum: []string{"text", "password", "confirmation"}},
			{Name: "sensitive", Type: "boolean", Description: "Whether input is sensitive (should hide input characters)"},
		}, []string{"prompt"}),
	}
}

// property is one entry of a schema's properties object.
type property struct {
	Name        string   `json:"-"`
	Type        string   `json:"type"`
	Description string   `json:"description,omitempty"`
	Enum        []string `json:"enum,omitempty"`
	Default     *string  `json:"default,omitempty"`
}

// objectSchema writes an object schema with ordered properties (a Go map
// would sort them).
func objectSchema(props []property, required []string) json.RawMessage {
	var b bytes.Buffer
	b.WriteString(`{"type":"object","properties":{`)
	for i, p := range props {
		if i > 0 {
			b.WriteByte(',')
		}
		name, _ := json.Marshal(p.Name)
		body, _ := json.Marshal(p)
		b.Write(name)
		b.WriteByte(':')
		b.Write(body)
	}
	b.WriteString(`},"required":`)
	if required == nil {
		required = []string{}
	}
	req, _ := json.Marshal(required)
	b.Write(req)
	b.WriteString(`,"additionalProperties":false}`)
	return b.Bytes()
}
