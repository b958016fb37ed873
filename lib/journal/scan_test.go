package journal

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// scanAll is Scan on data through a reader whose buffer (16 bytes, the
// least bufio allows) is shorter than most lines.
func scanAll(data []byte) ([]Event, error) {
	var got []Event
	err := scan(bufio.NewReaderSize(bytes.NewReader(data), 16), func(e *Event) error {
		got = append(got, *e)
		return nil
	})
	return got, err
}

// checkScanIsParse fails when Scan and Parse disagree on data: the same
// events, or the same error.
func checkScanIsParse(t *testing.T, data []byte) {
	t.Helper()
	want, _, wantErr := parse(data)
	got, err := scanAll(data)
	if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
		t.Fatalf("on %q: Scan's error %v, Parse's %v", data, err, wantErr)
	}
	if wantErr == nil && len(want)+len(got) > 0 && !reflect.DeepEqual(got, want) {
		t.Fatalf("on %q: Scan gave\n%+v\nParse gives\n%+v", data, got, want)
	}
}

// TestScanIsParse holds the streaming reader to ReadFile's rules: torn
// tails ignored, a bad line before the end corrupt, blank lines skipped,
// lines longer than the read buffer whole.
func TestScanIsParse(t *testing.T) {
	long := `{"type":"THOUGHT","seq":3,"content":"` + strings.Repeat("x", 100) + `"}` + "\n"
	for _, data := range []string{
		"", l1, l1 + l2, l1 + `{"type":"THOU`, l1 + "garbage\n", l1 + "garbage\n\n  \n", l1 + "garbage\n  x",
		"garbage\n" + l1, l1 + "\n\n" + l2, l1 + l2 + long, l1 + l2 + long + `{"type":"X","seq":9}` + "\n",
		`{"type":"X","seq":"nope"}` + "\n", l2 + l1,
	} {
		checkScanIsParse(t, []byte(data))
	}
}

// TestScanStopsAtFnError: fn's error ends the scan unwrapped.
func TestScanStopsAtFnError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	if err := os.WriteFile(path, []byte(l1+l2), 0o644); err != nil {
		t.Fatal(err)
	}
	stop := errors.New("enough")
	calls := 0
	err := Scan(path, func(*Event) error { calls++; return stop })
	if err != stop || calls != 1 {
		t.Fatalf("Scan = %v after %d calls, want fn's error after 1", err, calls)
	}
	if err := Scan(filepath.Join(t.TempDir(), "none"), func(*Event) error { return nil }); err == nil {
		t.Fatal("Scan of a missing file succeeded")
	}
}

// FuzzScan holds Scan to Parse on any input.
func FuzzScan(f *testing.F) {
	f.Add([]byte(l1 + l2))
	f.Add([]byte(l1 + "garbage\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) { checkScanIsParse(t, data) })
}
