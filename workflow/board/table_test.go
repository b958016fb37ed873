package board_test

import (
	"testing"

	"github.com/deltakit/delta/workflow/board"
	"github.com/deltakit/delta/workflow/board/boardtest"
)

// TestMemoryStore and TestFileStore run the table every store passes.
func TestMemoryStore(t *testing.T) {
	boardtest.Run(t, func(t *testing.T, cfg board.Config) board.Provider { return board.NewMemory(cfg) })
}

func TestFileStore(t *testing.T) {
	boardtest.Run(t, func(t *testing.T, cfg board.Config) board.Provider {
		p, err := board.OpenFile(t.TempDir(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		return p
	})
}
