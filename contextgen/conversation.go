package contextgen

import (
	"fmt"
	"slices"

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
	seg segment // the iteration's segment, made with it
	// msgs are the assistant message, then one tool message per call in
	// the order of the calls, filled in as the call's result comes (an
	// empty Role: not yet): once every call has its result they are the
	// iteration's messages as they are, made only once.
	msgs    []llm.Message
	pending int // calls without their result
	// human are HUMAN_INPUT_RECEIVED responses, the fallback result, and
	// asked the HUMAN_INPUT_REQUEST prompts still unanswered, per call;
	// both nil until the iteration's first such event (most have none).
	human, asked []string
	final        bool // every call has its ACTION_RESULT: nothing later changes it
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
	r := newRebuilder("")
	for i := range events {
		r.add(&events[i])
	}
	return r.conversation(waitingFor(events))
}

// waitingFor reports whether the run of events is paused for a human. A
// question is pending only while the run waits for its answer: once the
// run goes on, the engine answers the call itself.
func waitingFor(events []journal.Event) bool {
	return len(events) > 0 && waitsAfter(&events[len(events)-1])
}

// waitsAfter reports whether a run whose last event is ev is paused for a
// human.
func waitsAfter(ev *journal.Event) bool {
	return ev.Type == journal.EngineEnd && ev.Status == string(runs.WaitingForInput)
}

// rebuilder is rebuild one event at a time: the Builder keeps one between
// builds and adds only the events appended since (conversationOf), which
// gives the same conversation as rebuilding from all of them.
type rebuilder struct {
	segs   []*segment
	blocks int
	its    []*iteration
	// byID is the latest iteration with each call id, made the first time
	// a result answers a call of an older iteration than the latest: the
	// engine journals the results right after their THOUGHT, so most
	// conversations never need it.
	byID map[string]*iteration
	n    int // events added
	// runDir is the run directory the files of results' images are read
	// from ("": none, each image is then a line saying it is missing).
	runDir string
}

func newRebuilder(runDir string) *rebuilder { return &rebuilder{runDir: runDir} }

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
		it := newIteration(ev)
		if r.byID != nil {
			r.index(it)
		}
		it.seg = segment{block: r.blocks, it: it}
		r.its = append(r.its, it)
		r.segs = append(r.segs, &it.seg)
		r.blocks++
	case journal.ActionResult:
		it, i := r.find(ev.CallID, ev.ToolName)
		switch {
		case it == nil:
		case it.msgs[1+i].Role == "":
			it.msgs[1+i] = llm.Message{Role: llm.RoleTool, Content: ev.ObservationContent, ToolCallID: it.calls()[i].ID, IsError: ev.IsError,
				Parts: runs.LoadParts(r.runDir, ev.Parts)}
			it.pending--
		case ev.Unsandboxed:
			// The call ran again outside the sandbox, approved (the
			// escalation): its result replaces the refusal. Messages
			// already handed out keep theirs.
			it.msgs = slices.Clone(it.msgs)
			it.msgs[1+i] = llm.Message{Role: llm.RoleTool, Content: ev.ObservationContent, ToolCallID: it.calls()[i].ID, IsError: ev.IsError}
			it.final = false
		}
	case journal.HumanInputRequest:
		if it, i := r.find(ev.CallID, "ask_human"); it != nil && ev.CallID != "" {
			it.humanSlots()
			it.asked[i] = ev.Prompt
		}
	case journal.HumanInputReceived:
		if it, i := r.find(ev.CallID, "ask_human"); it != nil && ev.CallID != "" {
			it.humanSlots()
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
			if it.pending == 0 {
				it.final = true
				s.msgs, s.chars = it.msgs, llm.MessageChars(it.msgs)
			} else {
				msgs := it.messages(waiting)
				s = &segment{block: s.block, msgs: msgs, chars: llm.MessageChars(msgs), it: it}
			}
		}
		c.segs[i] = s
	}
	return c
}

// find returns the iteration and position of the call a result answers: by
// call_id (in the latest iteration with a call of that id), or (for
// results recorded without one) the oldest unanswered call of that tool
// name in the latest iteration.
func (r *rebuilder) find(callID, tool string) (*iteration, int) {
	if len(r.its) == 0 {
		return nil, 0
	}
	if callID != "" {
		if i := callIndex(r.its[len(r.its)-1], callID); i >= 0 {
			return r.its[len(r.its)-1], i
		}
		if r.byID == nil {
			r.byID = make(map[string]*iteration, len(r.its))
			for _, it := range r.its {
				r.index(it)
			}
		}
		if it := r.byID[callID]; it != nil {
			return it, callIndex(it, callID)
		}
		return nil, 0
	}
	it := r.its[len(r.its)-1]
	for i, tc := range it.calls() {
		if tc.Name == tool && it.msgs[1+i].Role == "" {
			return it, i
		}
	}
	return nil, 0
}

// index adds the calls of it, the latest iteration, to byID.
func (r *rebuilder) index(it *iteration) {
	for _, tc := range it.calls() {
		r.byID[tc.ID] = it
	}
}

// callIndex is the position of the first call of it with id callID, -1
// when it has none.
func callIndex(it *iteration, callID string) int {
	for i, tc := range it.calls() {
		if tc.ID == callID {
			return i
		}
	}
	return -1
}

// newIteration is the iteration of THOUGHT ev. Its tool calls are ev's,
// copied only to give a call without an id one (ev may be the engine's
// event, never changed).
func newIteration(ev *journal.Event) *iteration {
	calls := ev.ToolCalls
	for i := range calls {
		if calls[i].ID == "" {
			calls = slices.Clone(calls)
			for j := i; j < len(calls); j++ {
				if calls[j].ID == "" {
					calls[j].ID = fmt.Sprintf("call_%d_%d", ev.Seq, j)
				}
			}
			break
		}
	}
	if len(calls) == 0 {
		calls = nil
	}
	it := &iteration{msgs: make([]llm.Message, 1+len(calls)), pending: len(calls)}
	it.msgs[0] = llm.Message{Role: llm.RoleAssistant, Content: ev.Content, ToolCalls: calls, Reasoning: ev.Reasoning}
	return it
}

// calls are the iteration's tool calls.
func (it *iteration) calls() []llm.ToolCall { return it.msgs[0].ToolCalls }

// humanSlots makes human and asked, on the iteration's first human input
// event.
func (it *iteration) humanSlots() {
	if it.human == nil {
		n := len(it.calls())
		strs := make([]string, 2*n) // one allocation for both
		it.human, it.asked = strs[:n:n], strs[n:]
	}
}

// messages are the assistant message and one tool message per call, in
// the order of the calls, for an iteration some of whose calls have no
// result yet. waiting: the run is paused for a human, so an unanswered
// ask_human is shown as pending.
func (it *iteration) messages(waiting bool) []llm.Message {
	msgs := slices.Clone(it.msgs)
	for i, tc := range it.calls() {
		if msgs[1+i].Role != "" {
			continue
		}
		// A call without a result was interrupted: an error, as the
		// ACTION_RESULT the engine journals for it on resume says.
		content, failed := engine.InterruptedCallObservation, true
		switch {
		case it.human != nil && it.human[i] != "":
			content, failed = it.human[i], false
		case waiting && it.asked != nil && it.asked[i] != "":
			content, failed = PendingQuestionPrefix+it.asked[i], false
		}
		msgs[1+i] = llm.Message{Role: llm.RoleTool, Content: content, ToolCallID: tc.ID, IsError: failed}
	}
	return msgs
}

// pieces returns the messages of the iterations from the one numbered
// from on (all when from <= 0), with every user message, in journal
// order, one piece per segment. Iterations are whole: an assistant
// message is never separated from its tool results.
func (c *conversation) pieces(from int) [][]llm.Message {
	n := 0
	for _, s := range c.segs {
		if s.user || from <= 0 || s.block >= from {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	out := make([][]llm.Message, 0, n)
	for _, s := range c.segs {
		if s.user || from <= 0 || s.block >= from {
			out = append(out, s.msgs)
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

// chars counts the characters of the segments pieces(from) would keep.
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
	return join(c.pieces(c.firstKept(maxIterations)))
}
