package engine

import "github.com/deltakit/delta/lib/runs"

// Files of a run directory the engine writes; lib/runs owns their names,
// with the rest of the run directory's layout.
const (
	JournalFile = runs.JournalFile
	EngineLog   = runs.EngineLogFile
)
