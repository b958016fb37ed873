package board_test

import (
	"context"
	"fmt"

	"github.com/deltakit/delta/workflow/board"
)

// Two agents talk through the channel; the one mentioned finds the message
// in its inbox until it acknowledges it.
func Example() {
	ctx := context.Background()
	p := board.NewMemory(board.Config{Agents: []string{"reviewer", "coder"}})
	defer p.Close()

	p.Append(ctx, "reviewer", "@coder please fix the auth issue, it is urgent")
	inbox, _ := p.Inbox(ctx, "coder")
	for _, m := range inbox {
		fmt.Printf("#%d from @%s (%s): %s\n", m.Entry.Seq, m.Entry.From, m.Priority, m.Entry.Message)
	}
	p.Ack(ctx, "coder", inbox[len(inbox)-1].Entry.Seq)
	inbox, _ = p.Inbox(ctx, "coder")
	fmt.Println(len(inbox), "unread")
	// Output:
	// #1 from @reviewer (high): @coder please fix the auth issue, it is urgent
	// 0 unread
}
