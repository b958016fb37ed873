package contextgen

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deltakit/delta/lib/llm"
)

// TestResultImagesFromFiles: a result's images are read from the files
// ACTION_RESULT names in the run directory, by the Builder's journal
// source and by a Stream alike; a missing file, or a path that leaves the
// run directory, leaves the part without data (the model then gets a line
// saying so).
func TestResultImagesFromFiles(t *testing.T) {
	runDir := t.TempDir()
	png := []byte("\x89PNG fake")
	if err := os.MkdirAll(filepath.Join(runDir, "io", "t"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(runDir, "io", "t", "image-1.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(filepath.Dir(runDir), "outside.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
	res := result("c1", "read_file", "Image a.png")
	res.Parts = []llm.Part{{Type: "image", MediaType: "image/png", Path: "io/t/image-1.png", Size: 9},
		{Type: "image", MediaType: "image/png", Path: "io/t/gone.png", Size: 3},
		{Type: "image", MediaType: "image/png", Path: "../outside.png", Size: 9}}
	events := journalOf(user("look"), thought("", call("c1", "read_file")), res)
	want := []llm.Part{{Type: "image", MediaType: "image/png", Path: "io/t/image-1.png", Size: int64(len(png)), Data: png},
		{Type: "image", MediaType: "image/png", Path: "io/t/gone.png", Size: 3},
		{Type: "image", MediaType: "image/png", Path: "../outside.png", Size: 9}}
	b := New()
	s := NewStream(runDir)
	for i := range events {
		s.Add(&events[i])
	}
	for name, c := range map[string]*conversation{"builder": b.conversationOf(events, runDir), "stream": s.conversation()} {
		msgs := join(c.pieces(0))
		if len(msgs) != 3 {
			t.Fatalf("%s: %d messages, want 3", name, len(msgs))
		}
		if diff := cmp.Diff(want, msgs[2].Parts); diff != "" {
			t.Errorf("%s: the result's parts (-want +got):\n%s", name, diff)
		}
	}
	if parts := join(rebuild(events).pieces(0))[2].Parts; len(parts) != 3 || parts[0].Data != nil {
		t.Errorf("without a run directory: parts %+v, want them named without data", parts)
	}
}
