package contextgen

import (
	"fmt"

	"github.com/deltakit/delta/lib/engine"
	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/runs"
)

// NoResultContent is the tool message given to a tool call the journal has
// no result for (the run crashed or was killed between THOUGHT and
// ACTION_RESULT). Every call must be answered for the conversation to be
// valid, and the model should know that the call may or may not have had
// an effect rather than believe it succeeded. It is the engine's text, so
// that delta-context shows what the resumed run sends.
const NoResultContent = engine.InterruptedCallObservation

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
}

// iteration is a THOUGHT and what answers its tool calls.
type iteration struct {
	seg     *segment
	calls   []llm.ToolCall
	results []*string
	human   []string // HUMAN_INPUT_RECEIVED responses, the fallback result
	asked   []string // HUMAN_INPUT_REQUEST prompts still unanswered
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
	c := &conversation{}
	var its []*iteration
	byID := map[string]*iteration{}
	for _, ev := range events {
		switch ev.Type {
		case journal.UserMessage:
			c.add(&segment{user: true, block: c.blocks - 1, msgs: []llm.Message{{Role: llm.RoleUser, Content: ev.Content}}})
		case journal.SystemMessage:
			c.add(&segment{block: c.blocks - 1, msgs: []llm.Message{{Role: llm.RoleUser, Content: SystemNotePrefix + ev.Content}}})
		case journal.Thought:
			it := &iteration{seg: &segment{block: c.blocks}}
			for i, tc := range ev.ToolCalls {
				if tc.ID == "" {
					tc.ID = fmt.Sprintf("call_%d_%d", ev.Seq, i)
				}
				it.calls = append(it.calls, tc)
				byID[tc.ID] = it
			}
			it.results = make([]*string, len(it.calls))
			it.human = make([]string, len(it.calls))
			it.asked = make([]string, len(it.calls))
			it.seg.msgs = []llm.Message{{Role: llm.RoleAssistant, Content: ev.Content, ToolCalls: it.calls, Reasoning: ev.Reasoning}}
			its = append(its, it)
			c.add(it.seg)
			c.blocks++
		case journal.ActionResult:
			if it, i := find(its, byID, ev.CallID, ev.ToolName); it != nil && it.results[i] == nil {
				content := ev.ObservationContent
				it.results[i] = &content
			}
		case journal.HumanInputRequest:
			if it, i := find(its, byID, ev.CallID, "ask_human"); it != nil && ev.CallID != "" {
				it.asked[i] = ev.Prompt
			}
		case journal.HumanInputReceived:
			if it, i := find(its, byID, ev.CallID, "ask_human"); it != nil && ev.CallID != "" {
				it.human[i] = ev.Response
			}
		}
	}
	// A question is pending only while the run waits for its answer: once
	// the run goes on, the engine answers the call itself.
	waiting := len(events) > 0 && events[len(events)-1].Type == journal.EngineEnd &&
		events[len(events)-1].Status == string(runs.WaitingForInput)
	for _, it := range its {
		it.finish(waiting)
	}
	for _, s := range c.segs {
		s.chars = llm.MessageChars(s.msgs)
	}
	return c
}

func (c *conversation) add(s *segment) { c.segs = append(c.segs, s) }

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

// finish appends one tool message per call, in the order of the calls.
// waiting: the run is paused for a human, so an unanswered ask_human is
// shown as pending.
func (it *iteration) finish(waiting bool) {
	for i, tc := range it.calls {
		content := NoResultContent
		switch {
		case it.results[i] != nil:
			content = *it.results[i]
		case it.human[i] != "":
			content = it.human[i]
		case waiting && it.asked[i] != "":
			content = PendingQuestionPrefix + it.asked[i]
		}
		it.seg.msgs = append(it.seg.msgs, llm.Message{Role: llm.RoleTool, Content: content, ToolCallID: tc.ID})
	}
}

// window returns the messages of the last n iterations (all when n <= 0),
// with every user message, in journal order. Iterations are whole: an
// assistant message is never separated from its tool results.
func (c *conversation) window(from int) []llm.Message {
	var out []llm.Message
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
