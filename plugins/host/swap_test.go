package host_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/plugins/host"
)

// TestSwapAfterCheckNeverRuns renames a tampered twin over the plugin
// binary between the checksum check and the start: the process that runs
// is the one that was checked, and the twin never runs.
func TestSwapAfterCheckNeverRuns(t *testing.T) {
	dir := installed(t)
	bin := filepath.Join(dir, "delta-plugin-test")
	twinMark := filepath.Join(t.TempDir(), "twin-ran")
	twin := filepath.Join(dir, ".twin")
	if err := os.WriteFile(twin, []byte("#!/bin/sh\ntouch "+twinMark+"\nsleep 5\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	swaps := 0
	defer host.SetAfterVerify(func(path string) {
		if path == bin && swaps == 0 {
			swaps++
			if err := os.Rename(twin, bin); err != nil {
				t.Errorf("swap: %v", err)
			}
		}
	})()
	h := newHost(t, dir, host.Options{}, agent.PluginRef{Name: "test"})
	tb, err := h.Toolbox(context.Background())
	if err != nil {
		t.Fatalf("Toolbox() error = %v, want the checked plugin to start", err)
	}
	if swaps != 1 {
		t.Fatalf("the seam ran %d times, want 1", swaps)
	}
	if !tb.Has("echo") {
		t.Errorf("the started plugin does not serve echo: it is not the checked binary")
	}
	if _, err := os.Stat(twinMark); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the swapped-in twin ran (marker: %v)", err)
	}
	// The next start checks the file again and refuses the twin.
	h.Close()
	if _, err := host.New([]agent.PluginRef{{Name: "test"}}, host.Options{Dir: dir}); !errors.Is(err, host.ErrChecksum) {
		t.Errorf("host.New() after the swap = %v, want a checksum refusal", err)
	}
}
