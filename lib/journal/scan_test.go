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
	err := scan(bufio.NewReaderSize(bytes.NewReader(data), 16), 0, func(e *Event) error {
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
	checkFieldsAreScan(t, data, got, err)
}

// someFields are the keys a test's ScanFields keeps; kept projects an
// event on them.
var someFields = []string{"content", "tool_calls", "call_id", "observation_content", "is_error"}

func kept(e Event) Event {
	return Event{Type: e.Type, Seq: e.Seq, Content: e.Content, ToolCalls: e.ToolCalls, CallID: e.CallID,
		ObservationContent: e.ObservationContent, IsError: e.IsError}
}

// checkFieldsAreScan fails when ScanFields, on data, does not give the
// fields it keeps of Scan's events (full) or not Scan's error: the fields
// it leaves out are checked all the same.
func checkFieldsAreScan(t *testing.T, data []byte, full []Event, fullErr error) {
	t.Helper()
	skip := ^uint64(0)
	for _, k := range append(someFields, "type", "seq") {
		skip &^= eventFieldBits[k]
	}
	var got []Event
	err := scan(bufio.NewReaderSize(bytes.NewReader(data), 16), skip, func(e *Event) error {
		got = append(got, kept(*e))
		return nil
	})
	if (err == nil) != (fullErr == nil) || err != nil && err.Error() != fullErr.Error() {
		t.Fatalf("on %q: ScanFields' error %v, Scan's %v", data, err, fullErr)
	}
	for i := range full {
		full[i] = kept(full[i])
	}
	if fullErr == nil && len(full)+len(got) > 0 && !reflect.DeepEqual(got, full) {
		t.Fatalf("on %q: ScanFields gave\n%+v\nScan gives (kept fields)\n%+v", data, got, full)
	}
}

// TestScanFieldsChecksWhatItSkips: a value ScanFields leaves out is still
// checked (a bad one is a corrupt line, as for Scan), and what it keeps is
// Scan's.
func TestScanFieldsChecksWhatItSkips(t *testing.T) {
	const end = `{"type":"ENGINE_END","seq":4}` + "\n"
	for _, bad := range []string{`"usage":{"input_tokens":"many"}`, `"timestamp":"yesterday"`, `"exit_code":1.5`,
		`"tool_args":{"a":}`, `"model":7`, `"reasoning":[{"type":3}]`} {
		data := []byte(l1 + l2 + `{"type":"THOUGHT","seq":3,` + bad + "}\n" + end)
		full, err := scanAll(data)
		if err == nil {
			t.Fatalf("Scan took %s", bad)
		}
		checkFieldsAreScan(t, data, full, err)
	}
	good := `{"type":"ACTION_RESULT","seq":3,"timestamp":"2026-01-02T03:04:05Z","usage":{"input_tokens":3},"exit_code":1,` +
		`"tool_args":{"a":[1,"x"]},"model":"m","call_id":"c","observation_content":"out\nput","is_error":true}` + "\n"
	data := []byte(l1 + l2 + good + end)
	full, err := scanAll(data)
	if err != nil || len(full) != 4 || full[2].CallID != "c" {
		t.Fatalf("Scan = %+v, %v", full, err)
	}
	checkFieldsAreScan(t, data, full, err)
}

// TestScanFieldsAllocatesLess: what ScanFields leaves out is not made.
func TestScanFieldsAllocatesLess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	line := `{"type":"THOUGHT","seq":1,"timestamp":"2026-01-02T03:04:05Z","model":"some-model","invocation_ref":"io/x",` +
		`"usage":{"input_tokens":3},"content":"hi"}` + "\n"
	if err := os.WriteFile(path, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	allocs := func(scan func(func(*Event) error) error) float64 {
		return testing.AllocsPerRun(20, func() {
			if err := scan(func(*Event) error { return nil }); err != nil {
				t.Fatal(err)
			}
		})
	}
	all := allocs(func(fn func(*Event) error) error { return Scan(path, fn) })
	some := allocs(func(fn func(*Event) error) error { return ScanFields(path, []string{"content"}, fn) })
	// The model, the ref and the usage: three allocations fewer.
	if some > all-3 {
		t.Fatalf("ScanFields made %v allocations, Scan %v: want 3 fewer", some, all)
	}
	if err := ScanFields(path, []string{"contents"}, func(*Event) error { return nil }); err == nil || !strings.Contains(err.Error(), `"contents"`) {
		t.Fatalf("ScanFields with an unknown key: %v, want an error naming it", err)
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
