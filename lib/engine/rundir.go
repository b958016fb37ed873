package engine

// Files of a run directory the engine writes (seeds/000 §1.2); lib/runs
// owns the directory itself and metadata.json.
const (
	JournalFile = "journal.jsonl"
	EngineLog   = "engine.log"
)
