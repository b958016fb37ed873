package execute

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// lookPath resolves name like a shell would, but with the PATH of the
// child's environment env (ours when env has none). Relative PATH entries
// are ignored so that a command never runs from the working directory by
// accident. A name with a slash is taken relative to dir.
func lookPath(name, dir string, env []string) (string, error) {
	if strings.Contains(name, "/") {
		p := name
		if !filepath.IsAbs(p) && dir != "" {
			p = filepath.Join(dir, p)
		}
		if err := isExecutable(p); err != nil {
			abs, _ := filepath.Abs(p)
			return "", &notRunnable{path: abs, err: err}
		}
		return filepath.Abs(p)
	}
	pathVar, ok := envLookup(env, "PATH")
	if !ok {
		pathVar = os.Getenv("PATH")
	}
	for _, d := range filepath.SplitList(pathVar) {
		if !filepath.IsAbs(d) {
			continue
		}
		p := filepath.Join(d, name)
		if isExecutable(p) == nil {
			return p, nil
		}
	}
	return "", &exec.Error{Name: name, Err: exec.ErrNotFound}
}

func isExecutable(p string) error {
	fi, err := os.Stat(p)
	if err != nil {
		return err
	}
	if fi.IsDir() {
		return errIsDir
	}
	if fi.Mode().Perm()&0o111 == 0 {
		return fs.ErrPermission
	}
	return nil
}

var errIsDir = errors.New("is a directory")

// notRunnable is a command named by its path that cannot run: it says
// what to do about it ("not executable: chmod +x PATH"). It matches
// exec.ErrNotFound and the cause.
type notRunnable struct {
	path string
	err  error
}

func (e *notRunnable) Error() string {
	switch {
	case errors.Is(e.err, fs.ErrNotExist):
		return "no such file: " + e.path
	case errors.Is(e.err, errIsDir):
		return e.path + " is a directory, not a program"
	case errors.Is(e.err, fs.ErrPermission):
		return "not executable: chmod +x " + e.path
	}
	return fmt.Sprintf("cannot run %s: %v", e.path, e.err)
}

func (e *notRunnable) Unwrap() []error { return []error{exec.ErrNotFound, e.err} }

// envLookup finds the last NAME=value of env, as getenv would.
func envLookup(env []string, name string) (string, bool) {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], name+"="); ok {
			return v, true
		}
	}
	return "", false
}
