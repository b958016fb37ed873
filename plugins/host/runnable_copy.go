package host

import (
	"fmt"
	"os"
	"path/filepath"
)

// privateCopy is how a plugin runs where a descriptor cannot be executed
// (macOS has no /proc, and no fexecve): a private copy of the bytes as they are hashed, in a directory only
// this user can enter; the child executes the copy, so what runs is still
// exactly what was checked. The copy is removed once the plugin started:
// the running process keeps its file.
type privateCopy struct {
	dir string
	out *os.File
}

func newPrivateCopy(src *os.File) (*privateCopy, error) {
	dir, err := os.MkdirTemp("", "delta-plugin-*")
	if err != nil {
		return nil, fmt.Errorf("private copy of the plugin binary: %w", err)
	}
	out, err := os.OpenFile(filepath.Join(dir, filepath.Base(src.Name())), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o700)
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("private copy of the plugin binary: %w", err)
	}
	return &privateCopy{dir: dir, out: out}, nil
}

func (r *privateCopy) Write(p []byte) (int, error) { return r.out.Write(p) }

func (r *privateCopy) path() (string, error) {
	if err := r.out.Close(); err != nil {
		return "", fmt.Errorf("private copy of the plugin binary: %w", err)
	}
	return r.out.Name(), nil
}

func (r *privateCopy) discard() {
	r.out.Close()
	os.RemoveAll(r.dir)
}
