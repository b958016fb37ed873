package sessions

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/deltakit/delta/lib/sys"
)

// Creating a file is the dearest thing an exec does on ext4 (a new inode
// is looked for past the recently deleted ones), and replacing a file by
// rename deletes one. So the files an exec rewrites (env.sh, work_dir.txt,
// metadata.json) each keep a spare, .NAME.new: the new content is written
// into the spare, then the two are exchanged in one atomic step
// (sys.Exchange: renameat2 RENAME_EXCHANGE on Linux, renamex_np
// RENAME_SWAP on macOS). Readers of NAME see the old or the new
// content, never a part; no inode is created or deleted; the old content
// becomes the next spare.

// spare is the name of the spare of name.
func spare(name string) string { return "." + name + ".new" }

// exchange puts dir/.NAME.new in place of dir/NAME atomically, leaving the
// old NAME as the spare; where the file system cannot exchange (or NAME
// does not exist yet) it renames.
func exchange(dir, name string) error {
	from, to := filepath.Join(dir, spare(name)), filepath.Join(dir, name)
	err := sys.Exchange(from, to)
	if err == nil {
		return nil
	}
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, sys.ErrUnsupported) {
		if _, serr := os.Stat(from); serr != nil {
			return serr // the new content is missing, not the old
		}
		return os.Rename(from, to)
	}
	return err
}

// replaceFile writes data into the spare of dir/name and exchanges the
// two. The caller holds the session lock: the spare is shared.
func replaceFile(dir, name string, data []byte) error {
	if err := overwrite(filepath.Join(dir, spare(name)), data); err != nil {
		return err
	}
	return exchange(dir, name)
}

// overwrite makes the file at path hold data, creating it if needed. It
// writes over the old content and then cuts what is left of it, instead
// of truncating first (O_TRUNC): freeing the file's blocks and allocating
// them again costs up to milliseconds on a busy ext4. Not atomic: for
// files no reader takes while they are written.
func overwrite(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	if _, err = f.WriteAt(data, 0); err == nil {
		err = f.Truncate(int64(len(data)))
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
