package execute

import (
	"strings"
	"testing"
)

func TestCapture(t *testing.T) {
	tests := []struct {
		name   string
		max    int
		writes []string
		want   string
	}{
		{"fits", 10, []string{"abc", "def"}, "abcdef"},
		{"exactly full", 6, []string{"abc", "def"}, "abcdef"},
		{"one write overflows", 6, []string{"abcdefghij"}, "abc\n[... 4 bytes omitted ...]\nhij"},
		{"many small writes wrap the ring", 6, []string{"ab", "cd", "ef", "gh", "ij", "kl"}, "abc\n[... 6 bytes omitted ...]\njkl"},
		{"utf-8 never split", 8, []string{"aéééééééééb"}, "aé\n[... 14 bytes omitted ...]\néb"},
		{"large write after wrap", 4, []string{"ab", "cdef", strings.Repeat("x", 100) + "yz"}, "ab\n[... 104 bytes omitted ...]\nyz"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCapture(tt.max, nil)
			var total int
			for _, w := range tt.writes {
				n, err := c.Write([]byte(w))
				if n != len(w) || err != nil {
					t.Fatalf("Write(%q) = %d, %v", w, n, err)
				}
				total += n
			}
			if got := c.String(); got != tt.want {
				t.Errorf("capture(%d) of %q = %q, want %q", tt.max, tt.writes, got, tt.want)
			}
			if c.total != int64(total) {
				t.Errorf("total = %d, want %d", c.total, total)
			}
			if len(c.head)+len(c.ring) > tt.max {
				t.Errorf("kept %d bytes, budget %d", len(c.head)+len(c.ring), tt.max)
			}
		})
	}
}
