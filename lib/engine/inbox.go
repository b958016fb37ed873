package engine

import (
	"fmt"

	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/runs"
)

// takeMessages journals the messages sent to the run (runs.Inbox) as
// USER_MESSAGEs with their source and id: steering messages only, or with
// followUps the follow-ups too. They are made durable before their inbox
// files are removed, and a message the journal already holds (the engine
// stopped between the two) is only removed, so a message is neither lost
// nor journaled twice whoever is killed when. It returns how many
// messages it took.
func (e *Engine) takeMessages(followUps bool) (int, error) {
	if e.Run.RunDir == "" {
		return 0, nil
	}
	msgs, err := runs.Inbox(e.Run.RunDir)
	if err != nil || len(msgs) == 0 {
		return 0, err
	}
	events, err := e.Journal.Events()
	if err != nil {
		return 0, err
	}
	have := map[string]bool{}
	for _, ev := range events {
		if ev.MessageID != "" {
			have[ev.MessageID] = true
		}
	}
	var taken []string
	for _, m := range msgs {
		if m.FollowUp && !followUps {
			continue
		}
		if !have[m.ID] {
			ev := &journal.Event{Type: journal.UserMessage, Content: m.Content, Source: m.Source(), MessageID: m.ID}
			if err := e.append(ev); err != nil {
				return 0, err
			}
			e.Log.Printf("message %s (%s) delivered", m.ID, m.Source())
		}
		taken = append(taken, m.ID)
	}
	if len(taken) == 0 {
		return 0, nil
	}
	if err := e.Journal.Sync(); err != nil {
		return 0, fmt.Errorf("sync journal: %w", err)
	}
	for _, id := range taken {
		if err := runs.Delivered(e.Run.RunDir, id); err != nil {
			return 0, fmt.Errorf("remove delivered message: %w", err)
		}
	}
	return len(taken), nil
}
