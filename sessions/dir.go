package sessions

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"mvdan.cc/sh/v3/syntax"

	"github.com/deltakit/delta/lib/atomicfile"
)

// The layout shared by every kind of session in a sessions directory
// (delta-sessions' sess_… and delta-pty's pty_…): one directory per id,
// holding metadata.json. delta-pty builds its store from these pieces.

// IDScheme is one family of session ids in a sessions directory.
type IDScheme struct {
	Prefix string // "sess_", "pty_"
	ErrBad error  // wrapped by Pick for a malformed id
}

// ids are the ids of delta-sessions.
var ids = IDScheme{Prefix: "sess_", ErrBad: ErrBadID}

// New returns a fresh id: the prefix and 12 random hex digits.
func (s IDScheme) New() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return s.Prefix + hex.EncodeToString(b[:])
}

// Valid reports whether id is the prefix followed by lowercase letters,
// digits, - or _ (64 bytes at most), which keeps ids from naming paths
// outside the store.
func (s IDScheme) Valid(id string) bool {
	rest, ok := strings.CutPrefix(id, s.Prefix)
	if !ok || rest == "" || len(id) > 64 {
		return false
	}
	for _, r := range rest {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// Pick returns id when it is valid, a new id when it is empty, and an
// error wrapping ErrBad otherwise.
func (s IDScheme) Pick(id string) (string, error) {
	if id == "" {
		return s.New(), nil
	}
	if !s.Valid(id) {
		return "", fmt.Errorf("%w %q: want %s followed by lowercase letters, digits, - or _", s.ErrBad, id, s.Prefix)
	}
	return id, nil
}

// ResolveDir returns dir made absolute, so that holders and later calls
// from another working directory agree on the paths.
func ResolveDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("resolve sessions directory %q: %w", dir, err)
	}
	return abs, nil
}

// CommandLine is argv as one shell command line, each argument quoted
// when it needs it, so what list shows can be run again as it is.
func CommandLine(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		q, err := syntax.Quote(a, syntax.LangBash)
		if err != nil { // a NUL byte: no shell can take it; show it as Go would
			q = strconv.Quote(a)
		}
		parts[i] = q
	}
	return strings.Join(parts, " ")
}

// WorkDir returns the absolute form of wd, the directory a session
// starts in; empty means the current directory.
func WorkDir(wd string) (string, error) {
	if wd == "" {
		var err error
		if wd, err = os.Getwd(); err != nil {
			return "", fmt.Errorf("get working directory: %w", err)
		}
	}
	abs, err := filepath.Abs(wd)
	if err != nil {
		return "", err
	}
	if !isDir(abs) {
		return "", fmt.Errorf("%w: %s", ErrNoWorkDir, abs)
	}
	return abs, nil
}

// isDir reports whether path names an existing directory.
func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// CreateDir makes the directory of the new session id under root. An id
// in use fails with ErrExists: ids are never reused.
func CreateDir(root, id string) (string, error) {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", fmt.Errorf("create sessions directory: %w", err)
	}
	dir := filepath.Join(root, id)
	if err := os.Mkdir(dir, 0o700); errors.Is(err, os.ErrExist) {
		return "", fmt.Errorf("%w: %s", ErrExists, id)
	} else if err != nil {
		return "", fmt.Errorf("create session directory: %w", err)
	}
	return dir, nil
}

// ReadMetadata decodes the metadata.json of session directory dir into m;
// a missing file is errUnknown, naming the session and its store.
func ReadMetadata(dir string, m any, errUnknown error) error {
	var err error
	// A reader without the session lock that stalls between opening and
	// reading can see the file rewritten as the spare of a later exec
	// (see exchange): it reads again.
	for range 3 {
		var data []byte
		data, err = os.ReadFile(filepath.Join(dir, "metadata.json"))
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("%w %s in %s", errUnknown, filepath.Base(dir), filepath.Dir(dir))
		}
		if err != nil {
			return fmt.Errorf("read session metadata: %w", err)
		}
		if err = json.Unmarshal(data, m); err == nil {
			return nil
		}
	}
	return fmt.Errorf("parse %s metadata.json: %w", filepath.Base(dir), err)
}

// WriteMetadata writes m as the metadata.json of session directory dir,
// atomically.
func WriteMetadata(dir string, m any) error {
	data, err := encodeMetadata(m)
	if err != nil {
		return err
	}
	return atomicfile.WriteNoSync(filepath.Join(dir, "metadata.json"), data, 0o600)
}

// encodeMetadata is the content of metadata.json.
func encodeMetadata(m any) ([]byte, error) {
	data, err := json.MarshalIndent(m, "", "  ")
	return append(data, '\n'), err
}

// LoadAll loads every session under root whose id the scheme accepts,
// oldest first by created. A directory that does not load is skipped: a
// half-created or foreign directory is not a session.
func LoadAll[M any](root string, scheme IDScheme, load func(id string) (M, error), created func(M) time.Time) ([]M, error) {
	entries, err := os.ReadDir(root)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read sessions directory: %w", err)
	}
	var out []M
	for _, e := range entries {
		if !e.IsDir() || !scheme.Valid(e.Name()) {
			continue
		}
		if m, err := load(e.Name()); err == nil {
			out = append(out, m)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return created(out[i]).Before(created(out[j])) })
	return out, nil
}

// StartupReporter prepares the ready pipe a holder process reports its
// start on (fd 3) and returns fail, which writes err there, closes the
// pipe and returns err.
func StartupReporter(ready io.WriteCloser) (fail func(error) error) {
	if f, ok := ready.(*os.File); ok {
		// Inherited without close-on-exec: keep it from the programs the
		// holder starts, or the parent would wait for their EOF.
		syscall.CloseOnExec(int(f.Fd()))
	}
	return func(err error) error {
		fmt.Fprintf(ready, "%v\n", err)
		ready.Close()
		return err
	}
}
