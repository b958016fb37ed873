//go:build !linux

package host

import "os"

func newRunnable(src *os.File) (*privateCopy, error) { return newPrivateCopy(src) }
