package clitest

import (
	"bytes"
	"sync"
)

// Buffer is a bytes.Buffer safe for concurrent use: what a reader
// goroutine copies from a terminal or a child's stderr, read by the test.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
