package runs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/deltakit/delta/lib/llm"
)

// partExt is the file extension of each media type Delta keeps.
var partExt = map[string]string{
	"image/png": ".png", "image/jpeg": ".jpg", "image/gif": ".gif", "image/webp": ".webp",
	"audio/wav": ".wav", "audio/x-wav": ".wav", "audio/mpeg": ".mp3", "audio/mp3": ".mp3",
	"audio/ogg": ".ogg", "audio/flac": ".flac", "audio/webm": ".webm", "audio/aac": ".aac",
}

// PartFile is the path, relative to the run directory, of the n-th
// (1-based) image or sound of a tool call's result, named by its kind
// and media type (image-1.png): in the directory of the call's record
// recordPath (a ToolRecord's Path), or, for a call without a record,
// in ToolExecutionsDir/parts/ by its call id.
func PartFile(recordPath, callID string, n int, kind, mediaType string) string {
	ext, ok := partExt[strings.ToLower(mediaType)]
	if !ok {
		ext = ".bin"
	}
	name := fmt.Sprintf("%s-%d%s", safeName(kind), n, ext)
	if dir, ok := strings.CutSuffix(recordPath, ".json"); ok && dir != "" {
		return dir + "/" + name
	}
	return ToolExecutionsDir + "/parts/" + safeName(callID) + "-" + name
}

// WritePart writes data at rel (a PartFile) in runDir and syncs it: the
// context shows it to the model in every later iteration, and after a
// continue.
func WritePart(runDir, rel string, data []byte) error {
	path := filepath.Join(runDir, filepath.FromSlash(rel))
	if err := MkdirIn(runDir, filepath.Dir(path)); err != nil {
		return fmt.Errorf("keep %s: %w", rel, err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("keep %s: %w", rel, err)
	}
	_, werr := f.Write(data)
	if err := errors.Join(werr, f.Sync(), f.Close()); err != nil {
		return fmt.Errorf("keep %s: %w", rel, err)
	}
	return nil
}

// LoadParts returns refs (the parts ACTION_RESULT names) with their
// files' data: the run's files are the truth, so a continued run and
// delta-context show the model the same images. A file that cannot be
// read leaves its part without data, which the model is told as a line
// (llm.TextOnly); a part that has its data keeps it.
func LoadParts(runDir string, refs []llm.Part) []llm.Part {
	if len(refs) == 0 {
		return nil
	}
	out := make([]llm.Part, len(refs))
	for i, p := range refs {
		out[i] = p
		if runDir == "" || p.Path == "" || len(p.Data) > 0 {
			continue
		}
		if data, err := ReadPart(runDir, p.Path); err == nil {
			out[i].Data, out[i].Size = data, int64(len(data))
		}
	}
	return out
}

// ReadPart reads the file rel (a PartFile) of the run in runDir. A path
// that leaves the run directory is refused: it comes from the journal,
// which a user may have edited.
func ReadPart(runDir, rel string) ([]byte, error) {
	clean := filepath.Clean(filepath.FromSlash(rel))
	if filepath.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
		return nil, fmt.Errorf("read %s: the path leaves the run directory", rel)
	}
	return os.ReadFile(filepath.Join(runDir, clean))
}
