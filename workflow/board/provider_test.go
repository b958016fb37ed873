package board

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// clock is a settable test clock.
// providers runs f against the memory and the file provider.
var bg = context.Background()

func must[T any](t *testing.T) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

func TestMentions(t *testing.T) {
	agents := []string{"reviewer", "coder", "scribe"}
	tests := []struct {
		msg  string
		want []string
	}{
		{"@coder please fix", []string{"coder"}},
		{"@coder and @reviewer, @coder again", []string{"coder", "reviewer"}},
		{"@nobody is here, mail me@coder.dev", []string{"coder"}},
		{"no mentions", []string{}},
		{"@Coder is not coder", []string{}},
		{"@reviewer-bot counts as reviewer-bot, not reviewer", []string{}},
	}
	for _, tt := range tests {
		if got := Mentions(tt.msg, agents); !cmp.Equal(got, tt.want) {
			t.Errorf("Mentions(%q) = %v, want %v", tt.msg, got, tt.want)
		}
	}
}

func TestPriority(t *testing.T) {
	tests := []struct {
		e    Entry
		want string
	}{
		{Entry{Message: "@a hi", Mentions: []string{"a"}}, PriorityNormal},
		{Entry{Message: "@a @b sync up", Mentions: []string{"a", "b"}}, PriorityHigh},
		{Entry{Message: "@a this is URGENT", Mentions: []string{"a"}}, PriorityHigh},
		{Entry{Message: "@a I am blocked on it", Mentions: []string{"a"}}, PriorityHigh},
		{Entry{Message: "@a nonurgent", Mentions: []string{"a"}}, PriorityNormal},
	}
	for _, tt := range tests {
		if got := Priority(tt.e); got != tt.want {
			t.Errorf("Priority(%q) = %s, want %s", tt.e.Message, got, tt.want)
		}
	}
}

func TestResolutionRules(t *testing.T) {
	opts := []Option{{ID: "x"}, {ID: "y"}, {ID: "z"}}
	tests := []struct {
		name  string
		res   Resolution
		votes [][2]string // voter, choice, in order
		want  string
	}{
		{"plurality", Resolution{Type: Plurality}, [][2]string{{"a", "y"}, {"b", "y"}, {"c", "x"}}, "y"},
		{"plurality tie, no breaker", Resolution{Type: Plurality, Quorum: 2}, [][2]string{{"a", "y"}, {"b", "x"}}, ""},
		{"plurality tie, first", Resolution{Type: Plurality, Quorum: 2, TieBreaker: TieFirst}, [][2]string{{"a", "y"}, {"b", "x"}}, "x"},
		{"plurality tie, creator decides", Resolution{Type: Plurality, Quorum: 2, TieBreaker: TieCreatorDecides}, [][2]string{{"a", "x"}, {"b", "y"}}, "y"},
		{"majority", Resolution{Type: Majority}, [][2]string{{"a", "z"}, {"b", "z"}, {"c", "x"}}, "z"},
		{"majority missed", Resolution{Type: Majority, Quorum: 3}, [][2]string{{"a", "z"}, {"b", "y"}, {"c", "x"}}, ""},
		{"unanimous", Resolution{Type: Unanimous}, [][2]string{{"a", "x"}, {"b", "x"}, {"c", "x"}}, "x"},
		{"unanimous broken", Resolution{Type: Unanimous}, [][2]string{{"a", "x"}, {"b", "x"}, {"c", "y"}}, ""},
		{"quorum of two", Resolution{Type: Plurality, Quorum: 2}, [][2]string{{"a", "z"}, {"c", "z"}}, "z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := NewMemory(Config{Agents: []string{"a", "b", "c"}, DocumentOwner: "a"})
			must[Proposal](t)(p.CreateProposal(bg, "b", ProposalSpec{Type: Decision, Title: "t", Options: opts, Resolution: tt.res}))
			for _, v := range tt.votes {
				must[VoteOutcome](t)(p.Vote(bg, v[0], "p1", v[1], ""))
			}
			pr := must[Proposal](t)(p.Proposal(bg, "p1"))
			if pr.Status != StatusResolved || pr.Result.Winner != tt.want {
				t.Errorf("status %s, winner %q; want resolved, %q", pr.Status, pr.Result.Winner, tt.want)
			}
		})
	}
}

func TestToolArguments(t *testing.T) {
	p := NewMemory(Config{Agents: []string{"a", "b"}})
	tools := NewTools(p)
	for _, tt := range []struct{ name, args, want string }{
		{"channel_send", `{}`, "bad arguments: message is required"},
		{"channel_send", `{"message":"x","to":"b"}`, `bad arguments: json: unknown field "to"`},
		{"channel_read", `{"since":"yesterday"}`, "bad arguments: since \"yesterday\": give a seq number or an RFC 3339 time (2025-01-15T10:05:00Z)"},
		{"inbox_ack", `{}`, "bad arguments: until is required"},
		{"inbox_check", `{}`, "x has no inbox: only the agents of the workflow have one (a, b)"},
		{"proposal_create", `{"type":"poll","title":"t"}`, `proposal: invalid request: type "poll": use election, decision, approval or assignment`},
		{"proposal_create", `{"type":"decision","title":"t"}`, `proposal: invalid request: a decision needs options`},
	} {
		who := "a"
		if tt.name == "inbox_check" {
			who = "x"
		}
		_, err := tools.Call(bg, who, tt.name, []byte(tt.args))
		var te *ToolError
		if !errors.As(err, &te) || err.Error() != tt.want {
			t.Errorf("%s(%s) = %v, want ToolError %q", tt.name, tt.args, err, tt.want)
		}
	}
	if _, err := tools.Call(bg, "a", "rm_rf", nil); !errors.Is(err, ErrUnknownTool) {
		t.Errorf("unknown tool = %v", err)
	}
	// until as a number, a numeric string, or a timestamp.
	e := must[Entry](t)(p.Append(bg, "b", "@a one"))
	must[Entry](t)(p.Append(bg, "b", "@a two"))
	must[string](t)(tools.Call(bg, "a", "inbox_ack", []byte(`{"until":1}`)))
	if cur := must[int64](t)(p.Cursor(bg, "a")); cur != 1 {
		t.Errorf("cursor after until 1 = %d", cur)
	}
	must[string](t)(tools.Call(bg, "a", "inbox_ack", []byte(`{"until":"`+e.Timestamp.Add(time.Hour).Format(time.RFC3339Nano)+`"}`)))
	if cur := must[int64](t)(p.Cursor(bg, "a")); cur != 2 {
		t.Errorf("cursor after until a later time = %d", cur)
	}
	out := must[string](t)(tools.Call(bg, "a", "channel_read", []byte(`{"since":1}`)))
	if !strings.Contains(out, `"seq": 2`) || strings.Contains(out, `"seq": 1,`) {
		t.Errorf("channel_read since 1 (a number) = %s", out)
	}
	if len(tools.Specs()) != 16 {
		t.Errorf("Specs = %d tools, want 16", len(tools.Specs()))
	}
}

// A binding election an agent opens is an election of the document owner
// (id doc-owner-N), among the agents, one at a time; its winner owns the
// documents, over documentOwner.
// TestNonAgentVotes: the quorum is the agents'. A vote by anyone else (a
// person, a script) is recorded, announced and counted in the result, but
// brings the proposal no closer to resolving: two people voting on a
// two-agent workflow's proposal must not close it before the agents vote.

// messages is the channel as "from: message" lines.
func messages(t *testing.T, p Provider) []string {
	t.Helper()
	entries := must[[]Entry](t)(p.Read(bg, ReadOptions{}))
	var out []string
	for _, e := range entries {
		out = append(out, e.From+": "+e.Message)
	}
	return out
}
