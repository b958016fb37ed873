package board

import (
	"golang.org/x/sys/unix"
)

// changeWatch signals modifications of one file, through inotify, so that
// a runner waiting for the channel wakes as soon as another process
// appends, not at its next poll.
type changeWatch struct {
	fd   int
	ch   chan struct{}
	done chan struct{}
}

// newChangeWatch watches path; when inotify is unavailable (no watches
// left, say) the watch never fires and Wait falls back to polling.
func newChangeWatch(path string) *changeWatch {
	w := &changeWatch{fd: -1, ch: make(chan struct{}, 1), done: make(chan struct{})}
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		return w
	}
	if _, err := unix.InotifyAddWatch(fd, path, unix.IN_MODIFY|unix.IN_ATTRIB|unix.IN_DELETE_SELF|unix.IN_MOVE_SELF); err != nil {
		unix.Close(fd)
		return w
	}
	w.fd = fd
	go w.loop()
	return w
}

// loop waits for events with poll(2) in short slices, so that close ends
// it promptly without closing a descriptor poll is using.
func (w *changeWatch) loop() {
	buf := make([]byte, 4096)
	fds := []unix.PollFd{{Fd: int32(w.fd), Events: unix.POLLIN}}
	for {
		select {
		case <-w.done:
			unix.Close(w.fd)
			return
		default:
		}
		n, err := unix.Poll(fds, int(pollInterval.Milliseconds()))
		if err != nil && err != unix.EINTR {
			unix.Close(w.fd)
			return
		}
		if n > 0 {
			for {
				if k, err := unix.Read(w.fd, buf); k <= 0 || err != nil {
					break
				}
			}
			select {
			case w.ch <- struct{}{}:
			default:
			}
		}
	}
}

func (w *changeWatch) changed() <-chan struct{} { return w.ch }

func (w *changeWatch) close() {
	if w.fd >= 0 {
		close(w.done)
	}
}
