// Package contextgen builds the messages the model receives next from an
// agent's context.yaml (seeds/000 §2.4): static files, computed files
// (external generator commands or in-process jq programs over the journal)
// and the conversation rebuilt from journal.jsonl.
//
// The Builder keeps no state between calls: the engine calls Build once per
// iteration and delta-context calls the very same code, so what
// delta-context prints is what the model is sent.
package contextgen
