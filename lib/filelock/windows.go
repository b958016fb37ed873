//go:build windows

package filelock

// Delta does not support Windows (WSL works): importing lib/sys makes a
// Windows build stop at its one message instead of at flock(2).
import _ "github.com/deltakit/delta/lib/sys"
