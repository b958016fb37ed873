package jsonout

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deltakit/delta/sessions"
)

func TestFail(t *testing.T) {
	tests := []struct {
		name string
		hint string
		err  error
		want string
	}{
		{"plain", "", errors.New("boom"), `{"error":"boom"}` + "\n"},
		{"hint", "list sessions", errors.New("unknown <x>"), `{"error":"unknown <x>","hint":"list sessions"}` + "\n"},
		{"dead holder", "start again", fmt.Errorf("exec: %w", sessions.ErrHolderDead),
			`{"error":"exec: holder not running","hint":"start again","status":"dead"}` + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			Fail(&out, tt.hint, tt.err)
			if diff := cmp.Diff(tt.want, out.String()); diff != "" {
				t.Errorf("Fail printed (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	var out bytes.Buffer
	ParseErrors("delta-pty")(&out, errors.New("unexpected argument <x>"))
	want := `{"error":"unexpected argument <x>","hint":"see delta-pty --help"}` + "\n"
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("ParseErrors printed (-want +got):\n%s", diff)
	}
}

func TestList(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	entries := []Entry{
		{"sess_a", "bash", sessions.StatusActive, at},
		{"sess_b", "python3", sessions.StatusTerminated, at},
	}
	for _, tt := range []struct {
		all  bool
		in   []Entry
		want string
	}{
		{false, nil, "[]\n"},
		{false, entries, `[{"session_id":"sess_a","command":"bash","status":"active","created_at":"2026-01-02T03:04:05Z"}]` + "\n"},
		{true, entries, `[{"session_id":"sess_a","command":"bash","status":"active","created_at":"2026-01-02T03:04:05Z"},` +
			`{"session_id":"sess_b","command":"python3","status":"terminated","created_at":"2026-01-02T03:04:05Z"}]` + "\n"},
	} {
		var out bytes.Buffer
		if err := List(&out, tt.in, tt.all); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, out.String()); diff != "" {
			t.Errorf("List(all=%v) (-want +got):\n%s", tt.all, diff)
		}
	}
}

func TestInput(t *testing.T) {
	got, err := Input([]string{"echo", "a"}, strings.NewReader("ignored"), "command")
	if err != nil || string(got) != "echo a" {
		t.Errorf("Input(args) = %q, %v, want \"echo a\"", got, err)
	}
	got, err = Input(nil, strings.NewReader("cat <<EOF\nx\nEOF\n"), "command")
	if err != nil || string(got) != "cat <<EOF\nx\nEOF\n" {
		t.Errorf("Input(stdin) = %q, %v, want the heredoc", got, err)
	}
	_, err = Input(nil, errReader{}, "text")
	if !errors.Is(err, errRead) || !strings.HasPrefix(err.Error(), "read text from stdin: ") {
		t.Errorf("Input(failing reader) = %v, want read text from stdin: %v", err, errRead)
	}
}

var errRead = errors.New("read failed")

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errRead }
