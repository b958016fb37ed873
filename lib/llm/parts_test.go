package llm

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestInputsOf(t *testing.T) {
	for model, want := range map[string]Inputs{
		"gpt-4o": {Images: true}, "gpt-4o-2024-08-06": {Images: true}, "openai/gpt-4o": {Images: true}, "gpt-5-mini": {Images: true},
		"o3": {Images: true}, "o3-mini": {}, "o1-mini-2024-09-12": {}, "claude-sonnet-4-5": {Images: true},
		"claude-3-5-haiku-20241022": {Images: true}, "gemini-2.5-flash": {Images: true, Audio: true}, "llama3": {}, "gpt-3.5-turbo": {},
	} {
		if got := InputsOf(model); got != want {
			t.Errorf("InputsOf(%q) = %+v, want %+v", model, got, want)
		}
	}
}

// TestTextOnly: the parts a model does not take become lines of the
// message's text, the others stay; msgs without such parts come back as
// they are.
func TestTextOnly(t *testing.T) {
	img := Part{Type: PartImage, MediaType: "image/png", Data: []byte{1, 2}, Path: "io/a/image-1.png", Size: 2}
	snd := Part{Type: PartAudio, MediaType: "audio/wav", Data: []byte{3}, Path: "io/a/audio-2.wav", Size: 1}
	gone := Part{Type: PartImage, MediaType: "image/png", Path: "io/a/image-3.png", Size: 9}
	msgs := []Message{{Role: RoleUser, Content: "hi"}, {Role: RoleTool, Content: "out\n", Parts: []Part{img, snd, gone}}}
	got := TextOnly(msgs, Inputs{Images: true})
	want := []Message{msgs[0], {Role: RoleTool, Parts: []Part{img}, Content: "out\n" +
		"[audio: audio/wav, 1 bytes, io/a/audio-2.wav] (not shown: this model does not take audio input)\n" +
		"[image: image/png, 9 bytes, io/a/image-3.png] (not shown: its file is missing)"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("TextOnly (-want +got):\n%s", diff)
	}
	if len(msgs[1].Parts) != 3 {
		t.Errorf("TextOnly changed its argument: %+v", msgs[1])
	}
	plain := msgs[:1]
	if got := TextOnly(plain, Inputs{}); &got[0] != &plain[0] {
		t.Errorf("TextOnly copied messages without parts")
	}
}

// TestPartJSON: a part kept in a file is named by its path in JSON, one
// that is not carries its data; nothing is HTML-escaped by the part
// itself (an encoder without HTML escaping writes it as it is).
func TestPartJSON(t *testing.T) {
	for _, tc := range []struct {
		p    Part
		want string
	}{
		{Part{Type: PartImage, MediaType: "image/png", Data: []byte{1}, Path: "io/a&b/image-1.png", Size: 1}, `{"type":"image","media_type":"image/png","path":"io/a&b/image-1.png","bytes":1}`},
		{Part{Type: PartImage, MediaType: "image/png", Data: []byte{1}}, `{"type":"image","media_type":"image/png","data":"AQ=="}`},
	} {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		err := enc.Encode(tc.p)
		if got := strings.TrimSpace(b.String()); err != nil || got != tc.want {
			t.Errorf("encode %+v = %s, %v; want %s", tc.p, got, err, tc.want)
		}
	}
}
