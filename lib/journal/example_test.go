package journal_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/deltakit/delta/lib/journal"
)

func Example() {
	dir, _ := os.MkdirTemp("", "journal")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "journal.jsonl")

	w, err := journal.Open(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	w.Append(&journal.Event{Type: journal.EngineStart, RunID: "r1"})
	w.Append(&journal.Event{Type: journal.UserMessage, Content: "hello"})
	w.Close()

	// A crash mid-write leaves a torn last line: readers ignore it, and
	// Repair moves it aside before the next writer opens the journal.
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"type":"THOUGHT","seq":3,"cont`)
	f.Close()

	events, _ := journal.ReadFile(path)
	for _, e := range events {
		fmt.Println(e.Seq, e.Type)
	}
	if _, err := journal.Open(path); err != nil {
		fmt.Println("open refused: torn tail")
	}
	saved, _ := journal.Repair(path)
	fmt.Println("torn tail saved:", saved != "")
	// Output:
	// 1 ENGINE_START
	// 2 USER_MESSAGE
	// open refused: torn tail
	// torn tail saved: true
}
