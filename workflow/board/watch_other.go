//go:build !linux

package board

// changeWatch never fires where there is no inotify: Wait polls.
type changeWatch struct{}

func newChangeWatch(string) *changeWatch      { return &changeWatch{} }
func (*changeWatch) changed() <-chan struct{} { return nil }
func (*changeWatch) close()                   {}
