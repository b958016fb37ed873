package execute

import (
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
			return "", &exec.Error{Name: name, Err: fmt.Errorf("%w: %w", exec.ErrNotFound, err)}
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
	if fi.IsDir() || fi.Mode().Perm()&0o111 == 0 {
		return fs.ErrPermission
	}
	return nil
}

// envLookup finds the last NAME=value of env, as getenv would.
func envLookup(env []string, name string) (string, bool) {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], name+"="); ok {
			return v, true
		}
	}
	return "", false
}
