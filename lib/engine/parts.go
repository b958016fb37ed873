package engine

import (
	"fmt"

	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/runs"
)

// MaxPartBytes bounds one image or sound of a tool result: more than
// any provider takes inline (Anthropic's limit for an image is 5 MB, the
// others' about 20 MB). A larger one is left out, with a line saying so.
const MaxPartBytes = 20 << 20

// keepParts writes the images and sounds of a tool result as files of
// the call's io/ record, the run's copy the context reads them from, and
// returns their references for ACTION_RESULT (no data: the journal names
// the files). A part that cannot be kept becomes a line of the
// observation, so the model still learns there was one.
func (e *Engine) keepParts(call llm.ToolCall, res *ToolOutcome) []llm.Part {
	var refs []llm.Part
	for i, p := range res.Parts {
		size := int64(len(p.Data))
		if p.Type != llm.PartImage && p.Type != llm.PartAudio {
			res.Observation += fmt.Sprintf("\n[a %q part of %d bytes was left out: only images and sounds are shown]", p.Type, size)
			continue
		}
		if size > MaxPartBytes {
			res.Observation += fmt.Sprintf("\n[%s: %s, %d bytes, left out: larger than %d MB]", p.Type, p.MediaType, size, MaxPartBytes>>20)
			continue
		}
		if e.Run.RunDir == "" {
			continue
		}
		rel := runs.PartFile(res.RecordPath, call.ID, i+1, p.Type, p.MediaType)
		if err := runs.WritePart(e.Run.RunDir, rel, p.Data); err != nil {
			e.Log.Printf("tool %s (%s): %v", call.Name, call.ID, err)
			res.Observation += fmt.Sprintf("\n[%s: %s, %d bytes, lost: %v]", p.Type, p.MediaType, size, err)
			continue
		}
		refs = append(refs, llm.Part{Type: p.Type, MediaType: p.MediaType, Path: rel, Size: size})
	}
	return refs
}

// reloadParts gives the parts of msgs their files' data again after a
// pre_llm_request hook modified the request: the JSON the hook saw names
// each image's file instead of holding its bytes (llm.Part).
func (e *Engine) reloadParts(msgs []llm.Message) {
	for i := range msgs {
		msgs[i].Parts = runs.LoadParts(e.Run.RunDir, msgs[i].Parts)
	}
}
