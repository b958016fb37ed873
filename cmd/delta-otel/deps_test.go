package main

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestOnlyOtelLinksTheSDK: the OpenTelemetry SDK, its exporters and gRPC
// dial code are linked into delta-otel alone. delta-run, which every run
// starts, and every other command and plugin stay as small as they were
// (delta log --otlp execs delta-otel instead of linking it).
func TestOnlyOtelLinksTheSDK(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	list := exec.Command(goBin, "list", "-deps", "-f", `{{if eq .Name "main"}}main {{.ImportPath}}{{else}}{{.ImportPath}}{{end}}`, "./cmd/...", "./plugins/...")
	list.Dir = "../.."
	out, err := list.Output()
	if err != nil {
		t.Fatalf("go list -deps ./cmd/... ./plugins/...: %v", err)
	}
	// One go list per binary would be slow; instead ask each main
	// package's own dependency list.
	var mains []string
	for _, line := range strings.Split(string(out), "\n") {
		if p, ok := strings.CutPrefix(line, "main "); ok {
			mains = append(mains, p)
		}
	}
	if len(mains) < 10 {
		t.Fatalf("go list found %d binaries: %q", len(mains), mains)
	}
	sawOtel := false
	for _, m := range mains {
		deps, err := exec.Command(goBin, "list", "-deps", m).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", m, err)
		}
		links := strings.Contains(string(deps), "go.opentelemetry.io/")
		if strings.HasSuffix(m, "/cmd/delta-otel") {
			sawOtel = links
			continue
		}
		if links {
			t.Errorf("%s links go.opentelemetry.io; only delta-otel may (exec it instead)", m)
		}
	}
	if !sawOtel {
		t.Errorf("delta-otel does not link go.opentelemetry.io: the check looks at the wrong packages")
	}
}
