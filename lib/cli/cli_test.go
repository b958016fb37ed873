package cli

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/deltakit/delta/lib/runs"
	"github.com/google/go-cmp/cmp"
)

func TestReport(t *testing.T) {
	for _, tc := range []struct {
		name     string
		err      error
		wantCode int
		wantOut  string
	}{
		{name: "nil", err: nil, wantCode: runs.ExitCompleted, wantOut: ""},
		{name: "plain error", err: errors.New("boom"), wantCode: runs.ExitFailed, wantOut: "x: error: boom\n"},
		{name: "code and hint", err: Errorf(runs.ExitConfig, "do this", "bad %s", "config"), wantCode: runs.ExitConfig,
			wantOut: "x: error: bad config\nx: hint: do this\n"},
		{name: "wrapped", err: fmt.Errorf("outer: %w", WithCode(ExitUsage, "", errors.New("inner"))), wantCode: ExitUsage,
			wantOut: "x: error: outer: inner\n"},
		{name: "label", err: &Error{Code: runs.ExitInterrupted, Label: "interrupted", Err: errors.New("run r stopped")}, wantCode: runs.ExitInterrupted,
			wantOut: "x: interrupted: run r stopped\n"},
		{name: "silent", err: &Error{Code: runs.ExitWaiting, Silent: true, Hint: "never shown", Err: errors.New("waiting")}, wantCode: runs.ExitWaiting,
			wantOut: ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			code := Report("x", &out, tc.err)
			if code != tc.wantCode {
				t.Errorf("code = %d, want %d", code, tc.wantCode)
			}
			if diff := cmp.Diff(tc.wantOut, out.String()); diff != "" {
				t.Errorf("stderr (-want +got):\n%s", diff)
			}
		})
	}
}
