//go:build windows

package sdk

// Delta does not support Windows (WSL works). Importing lib/sys there makes
// a Windows build stop at lib/sys's one message saying so, instead of at
// every Unix call of every package.
import _ "github.com/deltakit/delta/lib/sys"
