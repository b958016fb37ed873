package mcp

import (
	"context"
	"testing"
)

// A server given up on during its handshake is stopped at once; one that
// connected, or whose handshake still runs, gets stopWait to exit.
func TestStopperWait(t *testing.T) {
	expired, cancel := context.WithCancel(context.Background())
	cancel()
	live := context.Background()
	tests := []struct {
		name string
		set  func(w *stopper)
		want string
	}{
		{"never connecting", func(w *stopper) {}, "stopWait"},
		{"handshake running", func(w *stopper) { w.connecting(live) }, "stopWait"},
		{"handshake given up", func(w *stopper) { w.connecting(expired) }, "at once"},
		{"connected, then its context ended", func(w *stopper) { w.connecting(expired); w.connected() }, "stopWait"},
	}
	for _, tt := range tests {
		w := &stopper{}
		tt.set(w)
		got := "stopWait"
		if w.wait() == 0 {
			got = "at once"
		} else if w.wait() != stopWait {
			got = w.wait().String()
		}
		if got != tt.want {
			t.Errorf("%s: wait() = %s, want %s", tt.name, got, tt.want)
		}
	}
}
