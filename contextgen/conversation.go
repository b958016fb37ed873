package contextgen

import (
	"fmt"

	"github.com/deltakit/delta/lib/engine"
	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/runs"
)

// PendingQuestionPrefix starts the tool message shown for an ask_human
// call still waiting for its answer (a run in WAITING_FOR_INPUT): the
// question is pending, not interrupted. The resumed run replaces it with
// the answer.
const PendingQuestionPrefix = "[pending: waiting for the human's answer] "

// SystemNotePrefix starts the user-role message a SYSTEM_MESSAGE event
// (engine notices such as loop detection) becomes. A user-role note is
// accepted anywhere in a conversation by every provider, unlike a system
// message in the middle of one, and the prefix keeps it apart from what
// the human wrote.
const SystemNotePrefix = "[delta notice] "

// segment is one piece of the rebuilt conversation: a user message (always
// kept), an iteration (an assistant message and the results of its tool
// calls) or an engine notice that belongs to the iteration before it.
type segment struct {
	user  bool
	block int // iteration index; for a notice, the iteration before it (-1: none)
	msgs  []llm.Message
	chars int
	// it is the iteration of an iteration's segment; its msgs and chars
	// are set once every call is answered (final), before that each
	// conversation gets a segment of its own (see rebuilder.conversation).
	it *iteration
}

// iteration is a THOUGHT and what answers its tool calls.
type iteration struct {
	seg       *segment
	assistant llm.Message
	calls     []llm.ToolCall
	results   []*string
	failed    []bool   // the call's ACTION_RESULT says is_error
	human     []string // HUMAN_INPUT_RECEIVED responses, the fallback result
	asked     []string // HUMAN_INPUT_REQUEST prompts still unanswered
	final     bool     // every call has its ACTION_RESULT: nothing later changes it
}

// conversation is the journal split into segments, in journal order.
type conversation struct {
	segs   []*segment
	blocks int
}

// rebuild turns journal events into conversation segments. USER_MESSAGE
// becomes a user message, THOUGHT an assistant message with its tool
// calls, ACTION_RESULT the tool message answering its call (matched by
// call_id, placed right after its assistant message whatever came in
// between), SYSTEM_MESSAGE a user-role notice. HUMAN_INPUT_RECEIVED is
// represented by the ask_human call's ACTION_RESULT; it is used only when
// that result is missing. Results that answer no known call are dropped:
// an orphan tool message would make the whole request invalid.
func rebuild(events []journal.Event) *conversation {
	r := newRebuilder()
	for i := range events {
		r.add(&events[i])
	}
	return r.conversation(waitingFor(events))
}

// waitingFor reports whether the run of events is paused for a human. A
// question is pending only while the run waits for its answer: once the
// run goes on, the engine answers the call itself.
func waitingFor(events []journal.Event) bool {
	return len(events) > 0 && events[len(events)-1].Type == journal.EngineEnd &&
		events[len(events)-1].Status == string(runs.WaitingForInput)
}

// rebuilder is rebuild one event at a time: the Builder keeps one between
// builds and adds only the events appended since (conversationOf), which
// gives the same conversation as rebuilding from all of them.
type rebuilder struct {
	segs   []*segment
	blocks int
	its    []*iteration
	byID   map[string]*iteration
	n      int // events added
}

func newRebuilder() *rebuilder { return &rebuilder{byID: map[string]*iteration{}} }

// add takes the next event.
func (r *rebuilder) add(ev *journal.Event) {
	r.n++
	switch ev.Type {
	case journal.UserMessage:
		r.addSeg(&segment{user: true, block: r.blocks - 1, msgs: []llm.Message{{Role: llm.RoleUser, Content: ev.Content}}})
	case journal.SystemMessage, journal.TurnLimit:
		// A turn limit tells the model, when the run is continued, why
		// its work was cut short.
		r.addSeg(&segment{block: r.blocks - 1, msgs: []llm.Message{{Role: llm.RoleUser, Content: SystemNotePrefix + ev.Content}}})
	case journal.Thought:
		n := len(ev.ToolCalls)
		it := &iteration{results: make([]*string, n)}
		if n > 0 {
			it.calls = make([]llm.ToolCall, 0, n)
		}
		for i, tc := range ev.ToolCalls {
			if tc.ID == "" {
				tc.ID = fmt.Sprintf("call_%d_%d", ev.Seq, i)
			}
			it.calls = append(it.calls, tc)
			r.byID[tc.ID] = it
		}
		strs := make([]string, 2*n) // one allocation for both
		it.human, it.asked = strs[:n:n], strs[n:]
		it.failed = make([]bool, n)
		it.assistant = llm.Message{Role: llm.RoleAssistant, Content: ev.Content, ToolCalls: it.calls, Reasoning: ev.Reasoning}
		it.seg = &segment{block: r.blocks, it: it}
		r.its = append(r.its, it)
		r.segs = append(r.segs, it.seg)
		r.blocks++
	case journal.ActionResult:
		if it, i := find(r.its, r.byID, ev.CallID, ev.ToolName); it != nil && it.results[i] == nil {
			content := ev.ObservationContent
			it.results[i] = &content
			it.failed[i] = ev.IsError
		}
	case journal.HumanInputRequest:
		if it, i := find(r.its, r.byID, ev.CallID, "ask_human"); it != nil && ev.CallID != "" {
			it.asked[i] = ev.Prompt
		}
	case journal.HumanInputReceived:
		if it, i := find(r.its, r.byID, ev.CallID, "ask_human"); it != nil && ev.CallID != "" {
			it.human[i] = ev.Response
		}
	}
}

// addSeg adds a segment whose messages are final.
func (r *rebuilder) addSeg(s *segment) {
	s.chars = llm.MessageChars(s.msgs)
	r.segs = append(r.segs, s)
}

// conversation is the conversation of the events added so far (waiting:
// the run is paused for a human). An iteration whose calls all have their
// results is final: its messages are made once and shared by every later
// conversation; the others get theirs anew each time.
func (r *rebuilder) conversation(waiting bool) *conversation {
	c := &conversation{segs: make([]*segment, len(r.segs)), blocks: r.blocks}
	for i, s := range r.segs {
		if it := s.it; it != nil && !it.final {
			msgs := it.messages(waiting)
			if it.answered() {
				it.final = true
				s.msgs, s.chars = msgs, llm.MessageChars(msgs)
			} else {
				s = &segment{block: s.block, msgs: msgs, chars: llm.MessageChars(msgs), it: it}
			}
		}
		c.segs[i] = s
	}
	return c
}

// find returns the iteration and position of the call a result answers: by
// call_id, or (for results recorded without one) the oldest unanswered call
// of that tool name in the latest iteration.
func find(its []*iteration, byID map[string]*iteration, callID, tool string) (*iteration, int) {
	if callID != "" {
		it := byID[callID]
		if it == nil {
			return nil, 0
		}
		for i, tc := range it.calls {
			if tc.ID == callID {
				return it, i
			}
		}
		return nil, 0
	}
	if len(its) == 0 {
		return nil, 0
	}
	it := its[len(its)-1]
	for i, tc := range it.calls {
		if tc.Name == tool && it.results[i] == nil {
			return it, i
		}
	}
	return nil, 0
}

// answered reports whether every call of it has its result.
func (it *iteration) answered() bool {
	for _, r := range it.results {
		if r == nil {
			return false
		}
	}
	return true
}

// messages are the assistant message and one tool message per call, in
// the order of the calls. waiting: the run is paused for a human, so an
// unanswered ask_human is shown as pending.
func (it *iteration) messages(waiting bool) []llm.Message {
	msgs := make([]llm.Message, 0, 1+len(it.calls))
	msgs = append(msgs, it.assistant)
	for i, tc := range it.calls {
		// A call without a result was interrupted: an error, as the
		// ACTION_RESULT the engine journals for it on resume says.
		content, failed := engine.InterruptedCallObservation, true
		switch {
		case it.results[i] != nil:
			content, failed = *it.results[i], it.failed[i]
		case it.human[i] != "":
			content, failed = it.human[i], false
		case waiting && it.asked[i] != "":
			content, failed = PendingQuestionPrefix+it.asked[i], false
		}
		msgs = append(msgs, llm.Message{Role: llm.RoleTool, Content: content, ToolCallID: tc.ID, IsError: failed})
	}
	return msgs
}

// window returns the messages of the last n iterations (all when n <= 0),
// with every user message, in journal order. Iterations are whole: an
// assistant message is never separated from its tool results.
func (c *conversation) window(from int) []llm.Message {
	n := 0
	for _, s := range c.segs {
		if s.user || from <= 0 || s.block >= from {
			n += len(s.msgs)
		}
	}
	// Sized at once: a long conversation's messages would otherwise be
	// copied at every doubling, fresh memory each time.
	if n == 0 {
		return nil
	}
	out := make([]llm.Message, 0, n)
	for _, s := range c.segs {
		if s.user || from <= 0 || s.block >= from {
			out = append(out, s.msgs...)
		}
	}
	return out
}

// firstKept is the index of the oldest iteration max_iterations keeps.
func (c *conversation) firstKept(maxIterations int) int {
	if maxIterations <= 0 || maxIterations >= c.blocks {
		return 0
	}
	return c.blocks - maxIterations
}

// chars counts the characters of the segments window(from) would keep.
func (c *conversation) chars(from int) int {
	n := 0
	for _, s := range c.segs {
		if s.user || from <= 0 || s.block >= from {
			n += s.chars
		}
	}
	return n
}

// Conversation rebuilds the native conversation from a run's journal
// events, keeping the last maxIterations iterations (all when 0) and every
// user message. It is what a journal source without max_tokens yields.
func Conversation(events []journal.Event, maxIterations int) []llm.Message {
	c := rebuild(events)
	return c.window(c.firstKept(maxIterations))
}
