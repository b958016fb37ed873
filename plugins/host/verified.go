package host

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
)

// afterVerify is a test seam: it runs between checking a plugin binary and
// starting it, where a swap of the file would otherwise win.
var afterVerify = func(path string) {}

// verifiedBinary opens path, checks its sha256 against want and returns
// the open file, to be passed to the child as its first extra file
// (descriptor 3), and the path that executes exactly the bytes that were
// hashed (see runnable): a file renamed over path after the check is
// never run. Descriptor 3 stays open in the plugin, so a script's
// interpreter can open the same path too. The caller closes the file and
// calls done once the process started (its handshake answered).
func verifiedBinary(name, path, want string) (f *os.File, exe string, done func(), err error) {
	f, err = os.Open(path)
	if err != nil {
		return nil, "", nil, fmt.Errorf("plugin %q: %w", name, err)
	}
	run, err := newRunnable(f)
	if err != nil {
		f.Close()
		return nil, "", nil, fmt.Errorf("plugin %q: %w", name, err)
	}
	h := sha256.New()
	if _, err := io.Copy(io.MultiWriter(h, run), f); err != nil {
		run.discard()
		f.Close()
		return nil, "", nil, fmt.Errorf("plugin %q: read %s: %w", name, path, err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		run.discard()
		f.Close()
		return nil, "", nil, fmt.Errorf("plugin %q: binary %s has sha256 %s but the lock file says %s; refusing to run it: %w",
			name, path, got, want, ErrChecksum)
	}
	afterVerify(path)
	exe, err = run.path()
	if err != nil {
		run.discard()
		f.Close()
		return nil, "", nil, fmt.Errorf("plugin %q: %w", name, err)
	}
	return f, exe, run.discard, nil
}
