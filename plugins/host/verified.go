package host

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"strconv"
)

// afterVerify is a test seam: it runs between checking a plugin binary and
// starting it, where a swap of the file would otherwise win.
var afterVerify = func(path string) {}

// verifiedBinary opens path, checks its sha256 against want and returns
// the open file and the path that executes exactly that file:
// /proc/self/fd/N. The kernel resolves it while the descriptor is still
// open in the child (close-on-exec closes it only once exec succeeded), so
// a file renamed over path after the check is never run: what runs is
// what was hashed. The caller closes the file once the process started.
func verifiedBinary(name, path, want string) (*os.File, string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, "", fmt.Errorf("plugin %q: %w", name, err)
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		f.Close()
		return nil, "", fmt.Errorf("plugin %q: read %s: %w", name, path, err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		f.Close()
		return nil, "", fmt.Errorf("plugin %q: binary %s has sha256 %s but the lock file says %s; refusing to run it: %w",
			name, path, got, want, ErrChecksum)
	}
	afterVerify(path)
	return f, "/proc/self/fd/" + strconv.Itoa(int(f.Fd())), nil
}
