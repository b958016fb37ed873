package sys

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseProcStat(t *testing.T) {
	tests := []struct {
		name    string
		data    string
		want    ProcInfo
		wantErr bool
	}{
		{"full line", "123 (we ird) name)) S 1 123 99 0 -1 4194304 100 0 0 0 1 2 0 0 20 0 1 0 98765 1000 100",
			ProcInfo{PID: 42, PPID: 1, PGID: 123, SID: 99, Start: 98765}, false},
		{"short line, no start", "42 (sleep) S 7 42 1 34816 42 4194304", ProcInfo{PID: 42, PPID: 7, PGID: 42, SID: 1}, false},
		{"zombie", "42 (a) b (c)) Z 7 8 9 0", ProcInfo{PID: 42, PPID: 7, PGID: 8, SID: 9, Zombie: true}, false},
		{"dead", "42 (x) X 7 8 9", ProcInfo{PID: 42, PPID: 7, PGID: 8, SID: 9, Zombie: true}, false},
		{"no comm", "42 sleep S 7 8 9", ProcInfo{}, true},
		{"too short", "42 (x) S 7 8", ProcInfo{}, true},
		{"bad number", "42 (x) S 7 eight 9", ProcInfo{}, true},
		{"long state", "42 (x) SS 7 8 9", ProcInfo{}, true},
		{"bad start", "1 (x) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 soon", ProcInfo{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseProcStat(42, []byte(tt.data))
			if (err != nil) != tt.wantErr {
				t.Fatalf("parseProcStat(%q) error = %v, want error %v", tt.data, err, tt.wantErr)
			}
			if err != nil && !errors.Is(err, errStat) {
				t.Errorf("parseProcStat(%q) error = %v, want errStat", tt.data, err)
			}
			if diff := cmp.Diff(tt.want, got); err == nil && diff != "" {
				t.Errorf("parseProcStat(%q) mismatch (-want +got):\n%s", tt.data, diff)
			}
		})
	}
}

// FuzzParseProcStat: a process name is chosen by whoever started the
// process, so the parser must survive any bytes.
func FuzzParseProcStat(f *testing.F) {
	f.Add([]byte("42 (sleep) S 7 42 1 34816 42"))
	f.Add([]byte("1 ()) ) R 0 0 0"))
	f.Add([]byte(")"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := parseProcStat(1, data)
		if err == nil && p.PID != 1 {
			t.Errorf("parseProcStat kept pid %d, want 1", p.PID)
		}
	})
}
