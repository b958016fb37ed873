package contextgen

import (
	"errors"
	"fmt"
)

// Sentinel errors, for errors.Is on what Build returns.
var (
	// ErrMissing: a file or a generator's output_path does not exist and
	// on_missing is "error".
	ErrMissing = errors.New("file not found")
	// ErrGenerator: a generator command could not start or exited non-zero.
	ErrGenerator = errors.New("generator failed")
	// ErrTimeout: a generator ran past its timeout_ms and was killed.
	ErrTimeout = errors.New("generator timed out")
	// ErrJQ: a jq generator did not compile or failed at run time.
	ErrJQ = errors.New("jq generator failed")
	// ErrJournal: the journal could not be read.
	ErrJournal = errors.New("journal unreadable")
	// ErrSource: the source is malformed (unknown type, missing field).
	ErrSource = errors.New("invalid context source")
)

// SourceError says which context.yaml source failed and why. It unwraps to
// one of the sentinel errors above.
type SourceError struct {
	Index int    // position in sources, from 0
	ID    string // the source's id ("" when it has none)
	Type  string
	File  string // context.yaml path, when known
	Line  int    // line in context.yaml, 0 when unknown
	Err   error
}

func (e *SourceError) Error() string {
	where := fmt.Sprintf("context source #%d", e.Index+1)
	if e.ID != "" {
		where += fmt.Sprintf(" %q", e.ID)
	}
	if e.Type != "" {
		where += " (" + e.Type
		if e.Line > 0 {
			file := e.File
			if file == "" {
				file = "context.yaml"
			}
			where += fmt.Sprintf(", %s:%d", file, e.Line)
		}
		where += ")"
	}
	return where + ": " + e.Err.Error()
}

func (e *SourceError) Unwrap() error { return e.Err }
