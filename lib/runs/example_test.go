package runs_test

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/deltakit/delta/lib/runs"
)

func Example() {
	work, _ := os.MkdirTemp("", "workspace")
	defer os.RemoveAll(work)

	now := time.Now().UTC()
	m := &runs.Metadata{RunID: "my-run", Status: runs.Running, CreatedAt: now}
	m.SetProcess(runs.Self())
	runDir, err := runs.Create(work, m) // metadata, empty journal, io/: all or nothing
	if err != nil {
		fmt.Println(err)
		return
	}
	release, err := runs.Acquire(runDir) // one engine per run
	if err != nil {
		fmt.Println(err)
		return
	}
	defer release()

	_, err = runs.Create(work, &runs.Metadata{RunID: "my-run"})
	fmt.Println(errors.Is(err, runs.ErrRunExists))
	// We are the recorded process, so the janitor refuses to take over.
	fmt.Println(errors.Is(runs.Janitor(m, false), runs.ErrStillRunning))
	// Output:
	// true
	// true
}
