package sessions

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCapWriter(t *testing.T) {
	tests := []struct {
		name   string
		limit  int
		writes []string
		want   string
	}{
		{"under the limit", 10, []string{"abc", "def"}, "abcdef"},
		{"exactly the limit", 6, []string{"abc", "def"}, "abcdef"},
		{"no limit", 0, []string{strings.Repeat("x", 100)}, strings.Repeat("x", 100)},
		{"head and tail kept", 6, []string{"abcdefghij"}, "abc" + fmt.Sprintf(cutMarker, 4) + "hij"},
		{"many small writes", 4, []string{"1", "2", "3", "4", "5", "6", "7", "8", "9"}, "12" + fmt.Sprintf(cutMarker, 5) + "89"},
		{"odd limit: the tail gets the extra byte", 5, []string{"abcdefgh"}, "ab" + fmt.Sprintf(cutMarker, 3) + "fgh"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := &capWriter{limit: tt.limit}
			for _, s := range tt.writes {
				if n, err := w.WriteString(s); n != len(s) || err != nil {
					t.Fatalf("WriteString(%q) = %d, %v", s, n, err)
				}
			}
			if diff := cmp.Diff(tt.want, w.String()); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, capOutput(strings.Join(tt.writes, ""), tt.limit)); diff != "" {
				t.Errorf("capOutput mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCapWriterBounded checks memory stays bounded for a huge output.
func TestCapWriterBounded(t *testing.T) {
	w := &capWriter{limit: 100}
	chunk := strings.Repeat("y", 1000)
	for range 10000 {
		_, _ = w.WriteString(chunk)
	}
	if cap(w.head)+cap(w.tail) > 4096 {
		t.Errorf("capWriter holds %d+%d bytes for a limit of 100", cap(w.head), cap(w.tail))
	}
	if !strings.Contains(w.String(), "9999900 bytes of output cut") {
		t.Errorf("String() = %q, want the cut count", w.String())
	}
}
