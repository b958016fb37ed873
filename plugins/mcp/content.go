package mcp

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/observe"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Render is what the model gets of a tool result: its text content as
// is, a line describing each resource it cannot read, the structured
// content as JSON when there is no text, and its images and audio clips
// as parts (a model that takes none gets a line for each instead). A
// result of parts alone reads as their lines, so the observation says
// what came; an empty result reads observe.NoOutput, as a silent
// command's does.
func Render(res *sdk.CallToolResult) (string, []llm.Part) {
	var parts []string
	var media []llm.Part
	for _, c := range res.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			parts = append(parts, c.Text)
		case *sdk.ImageContent:
			media = append(media, llm.Part{Type: llm.PartImage, MediaType: c.MIMEType, Data: c.Data, Size: int64(len(c.Data))})
		case *sdk.AudioContent:
			media = append(media, llm.Part{Type: llm.PartAudio, MediaType: c.MIMEType, Data: c.Data, Size: int64(len(c.Data))})
		case *sdk.ResourceLink:
			parts = append(parts, fmt.Sprintf("[resource link: %s %s]", c.URI, c.Name))
		case *sdk.EmbeddedResource:
			switch r := c.Resource; {
			case r == nil:
			case r.Text != "":
				parts = append(parts, r.Text)
			default:
				parts = append(parts, fmt.Sprintf("[resource: %s, %s, %d bytes]", r.URI, r.MIMEType, len(r.Blob)))
			}
		default:
			if raw, err := json.Marshal(c); err == nil {
				parts = append(parts, string(raw))
			}
		}
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		if raw, err := json.Marshal(res.StructuredContent); err == nil {
			parts = append(parts, string(raw))
		}
	}
	if len(parts) == 0 {
		for _, p := range media {
			parts = append(parts, p.Placeholder())
		}
	}
	text := strings.Join(parts, "\n")
	if text == "" {
		return observe.NoOutput, nil
	}
	return text, media
}
