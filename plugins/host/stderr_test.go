package host_test

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/clitest"
	"github.com/deltakit/delta/plugins/host"
	"github.com/deltakit/delta/plugins/install"
)

// TestPluginStderrOncePrefixed checks that a panicking plugin's stderr
// reaches the host's stderr once, every line prefixed, without go-plugin
// re-logging it or adding its exit notice (qa-b 5.3).
func TestPluginStderrOncePrefixed(t *testing.T) {
	var stderr clitest.Buffer
	h := newHost(t, installed(t), host.Options{Stderr: &stderr}, agent.PluginRef{Name: "test"})
	tb, err := h.Toolbox(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if out := call(t, tb, "panic", `{}`); !out.IsError {
		t.Fatalf("panic tool: %+v, want an error observation", out)
	}
	h.Close() // waits for go-plugin's stderr copy to finish
	got := stderr.String()
	if n := strings.Count(got, "about to panic"); n != 1 {
		t.Errorf("stderr has %d copies of the plugin's line, want 1:\n%s", n, got)
	}
	if n := strings.Count(got, "panic: boom"); n != 1 {
		t.Errorf("stderr has %d copies of the panic, want 1:\n%s", n, got)
	}
	for _, l := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
		if !strings.HasPrefix(l, "[plugin test] ") {
			t.Errorf("stderr line %q lacks the [plugin test] prefix", l)
		}
	}
	if strings.Contains(got, "plugin process exited") {
		t.Errorf("stderr has go-plugin's exit notice without verbose:\n%s", got)
	}
}

// TestToolboxChecksArguments checks that a call whose arguments do not fit
// the tool's schema is answered by the host without reaching the plugin.
func TestToolboxChecksArguments(t *testing.T) {
	dir := t.TempDir()
	if _, err := install.Install(context.Background(), filepath.Join(binDir, "delta-plugin-coding"), install.Options{Dir: dir}); err != nil {
		t.Fatal(err)
	}
	h := newHost(t, dir, host.Options{}, agent.PluginRef{Name: "coding"})
	tb, err := h.Toolbox(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := call(t, tb, "apply_patch", `{"input":"*** Begin Patch\n*** End Patch"}`)
	want := `error: invalid arguments: unknown parameter "input"; missing required parameter "patch" (parameters: patch)`
	if !out.IsError || out.Observation != want {
		t.Errorf("apply_patch with a misnamed parameter = %+v, want error %q", out, want)
	}
}

func TestPrefixWriter(t *testing.T) {
	var out bytes.Buffer
	w := host.NewPrefixWriterForTest(&out, "[p] ")
	for _, chunk := range []string{"one\ntw", "o\n", "", "three", "\nfour\nfive\n"} {
		if n, err := w.Write([]byte(chunk)); err != nil || n != len(chunk) {
			t.Fatalf("Write(%q) = %d, %v", chunk, n, err)
		}
	}
	want := "[p] one\n[p] two\n[p] three\n[p] four\n[p] five\n"
	if out.String() != want {
		t.Errorf("prefixWriter wrote %q, want %q", out.String(), want)
	}
}
