package workflow

import (
	"context"
	"testing"
	"time"

	"github.com/deltakit/delta/workflow/board"
)

// BenchmarkDelivery is the runner's own cost of one message: from a
// mention on the channel to the agent being run and its inbox
// acknowledged (the delivery recorded and removed, statuses written; the
// agent itself is an in-process fake that returns at once). The channel
// is the file provider's, in a temporary directory.
func BenchmarkDelivery(b *testing.B) {
	dir := b.TempDir()
	p, err := board.OpenFile(dir, board.Config{Agents: []string{"a"}})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	ran := make(chan struct{}, 1)
	fb := &fakeBackend{act: func(context.Context, Job, int) Result {
		ran <- struct{}{}
		return Result{Outcome: Succeeded}
	}}
	c := &Controller{Agent: &AgentDef{Name: "a"}, Provider: p, Backend: fb, Dir: dir, Poll: time.Hour,
		Prompt: func(context.Context, []board.InboxMessage, int) string { return "" }}
	c.Init("", 0)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	defer func() { cancel(); <-done }()
	go func() { defer close(done); c.Run(ctx) }()
	<-time.After(10 * time.Millisecond) // the first (empty) poll
	for b.Loop() {
		if _, err := p.Append(ctx, "user", "@a ping"); err != nil {
			b.Fatal(err)
		}
		c.Wake()
		<-ran
		for {
			if inbox, _ := p.Inbox(ctx, "a"); len(inbox) == 0 {
				break
			}
			time.Sleep(50 * time.Microsecond)
		}
	}
}
