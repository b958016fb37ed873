package board

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// Documents, inside the documents folder through an os.Root: no path or
// symbolic link reaches outside it.

func (s *fileStore) DocRead(name string) ([]byte, error) {
	b, err := s.docs.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("document %s: %w", name, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("read document %s: %w", name, docErr(err))
	}
	return b, nil
}

// docErr turns an escape attempt into ErrBadPath.
func docErr(err error) error {
	if strings.Contains(err.Error(), "path escapes from parent") {
		return fmt.Errorf("%w: %v", ErrBadPath, err)
	}
	return err
}

// docWrite replaces a document atomically: a temporary file beside it,
// synced, renamed over it, and the folder synced.
func (s *fileStore) DocWrite(name string, data []byte) error {
	dir := path.Dir(name)
	if err := s.docs.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write document %s: %w", name, docErr(err))
	}
	s.removeStaleTemps(dir)
	var rnd [6]byte
	rand.Read(rnd[:])
	tmp := path.Join(dir, "."+path.Base(name)+".tmp-"+hex.EncodeToString(rnd[:]))
	f, err := s.docs.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("write document %s: %w", name, docErr(err))
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = s.docs.Rename(tmp, name)
	}
	if err != nil {
		s.docs.Remove(tmp)
		return fmt.Errorf("write document %s: %w", name, docErr(err))
	}
	if d, err := s.docs.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// docTemp is the name of docWrite's temporary files.
var docTemp = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\..+\.tmp-[0-9a-f]{12}$`) })

// removeStaleTemps removes the temporary files docWrite left in dir when
// its writer was killed before renaming them. The documents lock, which
// every writer holds while its temporary file exists, is held by the
// caller: any such file found is a dead writer's.
func (s *fileStore) removeStaleTemps(dir string) {
	d, err := s.docs.Open(dir)
	if err != nil {
		return
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	for _, n := range names {
		if docTemp().MatchString(n) {
			s.docs.Remove(path.Join(dir, n))
		}
	}
}

func (s *fileStore) DocCreate(name string, data []byte) error {
	if _, err := s.docs.Lstat(name); err == nil {
		return fmt.Errorf("document %s: %w", name, ErrExists)
	}
	return s.DocWrite(name, data)
}

func (s *fileStore) DocDelete(name string) error {
	fi, err := s.docs.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("document %s: %w", name, ErrNotFound)
	}
	if err == nil && fi.IsDir() {
		return fmt.Errorf("document %s: %w: it is a folder", name, ErrInvalid)
	}
	if err == nil {
		err = s.docs.Remove(name)
	}
	if err != nil {
		return fmt.Errorf("delete document %s: %w", name, docErr(err))
	}
	return nil
}

func (s *fileStore) DocList() ([]string, error) {
	out := []string{}
	err := fs.WalkDir(s.docs.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != "." && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list documents: %w", err)
	}
	sort.Strings(out)
	return out, nil
}
