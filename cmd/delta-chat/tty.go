package main

import (
	"os"

	"github.com/deltakit/delta/lib/sys"
)

// keepKeys makes the terminal on f deliver every key as it is typed, also
// between two prompts, and returns the function that restores it. The
// line editor sets raw mode only while it reads a line; in the cooked
// mode between, a Ctrl-D would be end-of-file, which ends the editor's
// reader for good, and the chat would wait forever. Without canonical
// mode the key arrives as a byte the editor reads at its next prompt.
// Echo and signals stay as they are.
func keepKeys(f *os.File) (restore func(), err error) {
	return sys.KeyByKey(int(f.Fd()))
}
