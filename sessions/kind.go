package sessions

import (
	"fmt"
	"os/exec"
	"path/filepath"
)

// Kind says how a session runs its commands.
type Kind string

// The supported kinds: file-state shells and held interpreters.
const (
	KindBash   Kind = "bash"
	KindSh     Kind = "sh"
	KindPython Kind = "python"
	KindNode   Kind = "node"
)

// Held reports whether sessions of this kind need a holder process.
func (k Kind) Held() bool { return k == KindPython || k == KindNode }

// KindOf classifies a session command by its program name.
func KindOf(argv []string) (Kind, error) {
	if len(argv) == 0 {
		return KindBash, nil
	}
	switch base := filepath.Base(argv[0]); base {
	case "bash":
		return KindBash, nil
	case "sh", "dash":
		return KindSh, nil
	case "python3", "python":
		return KindPython, nil
	case "node", "nodejs":
		return KindNode, nil
	default:
		return "", fmt.Errorf("%w %q", ErrUnsupported, base)
	}
}

// resolve finds the program of argv on PATH, so a missing interpreter is
// reported by start rather than by the first exec.
func resolve(argv []string) (string, error) {
	p, err := exec.LookPath(argv[0])
	if err != nil {
		return "", fmt.Errorf("find %s: %w", argv[0], err)
	}
	return p, nil
}
