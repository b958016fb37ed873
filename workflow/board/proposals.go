package board

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

// DefaultProposalTimeout is how long a proposal stays open when its
// creator does not say.
const DefaultProposalTimeout = 60 * time.Second

// record is a proposal as stored: the proposal, its voters in voting
// order, and the channel messages its last change still has to post. A
// change and its messages are written in one atomic replace; the messages
// then go to the channel, each at most once (its Ref), and leave the
// record. A process killed in between leaves them pending, and the next
// proposal operation by any process posts them, so no announcement is
// lost or doubled.
type record struct {
	Proposal
	Voters  []string `json:"voters,omitempty"`
	Pending []notice `json:"pending,omitempty"`
}

type notice struct {
	From    string `json:"from"`
	Message string `json:"message"`
	Ref     string `json:"ref"`
}

func proposalKey(id string) string { return "proposals/" + id + ".json" }

var proposalIDPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`) })

// isBindingElection: an election whose result the system enforces, which
// for an election means choosing the document owner.
func isBindingElection(p Proposal) bool { return p.Type == Election && p.Binding }

// IsOwnerElection reports whether p is a binding document owner election.
func IsOwnerElection(p Proposal) bool { return isOwnerElection(p) }

func isOwnerElection(p Proposal) bool {
	return p.Type == Election && p.Binding && strings.HasPrefix(p.ID, OwnerElectionPrefix)
}

func isNotFound(err error) bool { return errors.Is(err, ErrNotFound) }

func (p *provider) load(id string) (*record, error) {
	if !proposalIDPattern().MatchString(id) {
		return nil, refuse(ErrNotFound, "Proposal %s not found", id)
	}
	b, err := p.s.get(proposalKey(id))
	if err != nil {
		return nil, err
	}
	if b == nil {
		return nil, refuse(ErrNotFound, "Proposal %s not found", id)
	}
	var r record
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("read proposal %s: %w", id, err)
	}
	if r.Result.Votes == nil {
		r.Result.Votes = map[string]string{}
	}
	if r.Result.Counts == nil {
		r.Result.Counts = map[string]int{}
	}
	return &r, nil
}

func (p *provider) save(r *record) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return p.s.put(proposalKey(r.ID), append(b, '\n'))
}

// flush posts r's pending messages and clears them.
func (p *provider) flush(r *record) error {
	if len(r.Pending) == 0 {
		return nil
	}
	for _, n := range r.Pending {
		if err := p.post(n.From, n.Message, n.Ref); err != nil {
			return err
		}
	}
	r.Pending = nil
	return p.save(r)
}

// all loads every proposal, in creation order. The caller holds the state
// lock.
func (p *provider) all() ([]*record, error) {
	keys, err := p.s.keys("proposals/")
	if err != nil {
		return nil, err
	}
	var out []*record
	for _, k := range keys {
		if !strings.HasSuffix(k, ".json") {
			continue // not a proposal (a stray file)
		}
		id := strings.TrimSuffix(strings.TrimPrefix(k, "proposals/"), ".json")
		r, err := p.load(id)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	slices.SortStableFunc(out, func(a, b *record) int { return a.CreatedAt.Compare(b.CreatedAt) })
	return out, nil
}

// settle posts what is pending and settles overdue proposals. The caller
// holds the state lock.
func (p *provider) settle() ([]Proposal, error) {
	recs, err := p.all()
	if err != nil {
		return nil, err
	}
	now := p.now()
	var changed []Proposal
	for _, r := range recs {
		if err := p.flush(r); err != nil {
			return changed, err
		}
		if r.Status != StatusActive || r.ExpiresAt == nil || now.Before(*r.ExpiresAt) {
			continue
		}
		if len(r.Result.Votes) == 0 {
			r.Status = StatusExpired
			t := now.UTC()
			r.Result.ResolvedAt, r.Result.ResolvedBy = &t, "timeout"
			msg := fmt.Sprintf("[EXPIRED:%s] No votes received.", r.ID)
			if isOwnerElection(r.Proposal) {
				msg += " Document ownership disabled."
			}
			r.Pending = append(r.Pending, notice{From: System, Message: msg + p.ccCreator(r), Ref: "expired:" + r.ID})
		} else {
			p.resolve(r, "timeout")
		}
		if err := p.commit(r); err != nil {
			return changed, err
		}
		changed = append(changed, r.Proposal)
	}
	return changed, nil
}

// commit applies a binding result, saves r and posts its messages.
func (p *provider) commit(r *record) error {
	if isOwnerElection(r.Proposal) && r.Status != StatusActive && r.Status != StatusCancelled {
		// The owner first: killed before the proposal is saved, the
		// election settles again to the same result.
		b, _ := json.Marshal(ownerState{Owner: r.Result.Winner, Source: r.ID})
		if err := p.s.put(ownerKey, append(b, '\n')); err != nil {
			return err
		}
	}
	if err := p.save(r); err != nil {
		return err
	}
	return p.flush(r)
}

func (p *provider) Settle(ctx context.Context) ([]Proposal, error) {
	unlock, err := p.s.lock(lockState)
	if err != nil {
		return nil, err
	}
	defer unlock()
	return p.settle()
}

func (p *provider) quorum(r *record) int {
	if r.Resolution.Quorum > 0 {
		return r.Resolution.Quorum
	}
	return max(len(p.cfg.Agents), 1)
}

// countsTowardQuorum: only the agents' votes bring a proposal to its
// quorum (seeds/002: "Minimum voters (default: all agents)"); a person or
// a script voting under another name is heard in the result, but cannot
// close a question put to the agents before they answer. With no agents
// configured there is no one else to wait for, and every vote counts.
func (p *provider) countsTowardQuorum(voter string) bool {
	return len(p.cfg.Agents) == 0 || slices.Contains(p.cfg.Agents, voter)
}

// agentVotes is how many of r's votes count toward its quorum.
func (p *provider) agentVotes(r *record) int {
	n := 0
	for _, v := range r.Voters {
		if p.countsTowardQuorum(v) {
			n++
		}
	}
	return n
}

// resolve decides r from its votes by its rule.
func (p *provider) resolve(r *record, by string) {
	counts := map[string]int{}
	for _, v := range r.Voters {
		counts[r.Result.Votes[v]]++
	}
	r.Result.Counts = counts
	winner := ""
	switch r.Resolution.Type {
	case Majority:
		for _, o := range r.Options {
			if counts[o.ID]*2 > len(r.Voters) {
				winner = o.ID
			}
		}
	case Unanimous:
		if len(counts) == 1 {
			for id := range counts {
				winner = id
			}
		}
	default: // plurality
		best := 0
		var tied []string
		for _, o := range r.Options {
			switch n := counts[o.ID]; {
			case n > best:
				best, tied = n, []string{o.ID}
			case n == best && n > 0:
				tied = append(tied, o.ID)
			}
		}
		switch {
		case len(tied) == 1:
			winner = tied[0]
		case len(tied) > 1:
			winner = p.breakTie(r, tied)
		}
	}
	now := p.now().UTC()
	r.Status = StatusResolved
	r.Result.Winner = winner
	r.Result.ResolvedAt, r.Result.ResolvedBy = &now, by
	label := "No winner (tie/no majority)"
	if winner != "" {
		label = r.label(winner)
	}
	var votes []string
	for _, o := range r.Options {
		if counts[o.ID] > 0 {
			votes = append(votes, fmt.Sprintf("%s=%d", o.ID, counts[o.ID]))
		}
	}
	msg := fmt.Sprintf("[RESOLVED:%s] %s\nResult: %s\nVotes: %s", r.ID, r.Title, label, strings.Join(votes, ", "))
	if by == "timeout" {
		kind := "votes"
		if p.agentVotes(r) < len(r.Voters) {
			kind = "agent votes" // others voted too: say which the quorum counts
		}
		msg += fmt.Sprintf("\n(timed out with %d of %d %s)", p.agentVotes(r), p.quorum(r), kind)
	}
	if isOwnerElection(r.Proposal) {
		if winner != "" {
			msg += fmt.Sprintf("\n@%s now owns the documents.", winner)
		} else {
			msg += "\nDocument ownership disabled."
		}
	}
	r.Pending = append(r.Pending, notice{From: System, Message: msg + p.ccCreator(r), Ref: "resolved:" + r.ID})
}

// ccCreator ends a result's message with a mention of the agent that
// asked, so that its inbox tells it the answer is in ("" when the creator
// is not an agent).
func (p *provider) ccCreator(r *record) string {
	if slices.Contains(p.cfg.Agents, r.CreatedBy) {
		return "\ncc @" + r.CreatedBy
	}
	return ""
}

func (p *provider) breakTie(r *record, tied []string) string {
	switch r.Resolution.TieBreaker {
	case TieFirst:
		return tied[0]
	case TieRandom:
		return tied[rand.IntN(len(tied))]
	case TieCreatorDecides:
		if v, ok := r.Result.Votes[r.CreatedBy]; ok && slices.Contains(tied, v) {
			return v
		}
	}
	return ""
}

func (r *record) label(option string) string {
	for _, o := range r.Options {
		if o.ID == option {
			return o.Label
		}
	}
	return option
}

func (r *record) optionIDs() string {
	ids := make([]string, len(r.Options))
	for i, o := range r.Options {
		ids[i] = o.ID
	}
	return strings.Join(ids, ", ")
}

// CreateProposal

func (p *provider) CreateProposal(ctx context.Context, creator string, spec ProposalSpec) (Proposal, error) {
	if err := checkIdentity(creator); err != nil {
		return Proposal{}, err
	}
	r, err := p.newRecord(creator, spec)
	if err != nil {
		return Proposal{}, err
	}
	unlock, err := p.s.lock(lockState)
	if err != nil {
		return Proposal{}, err
	}
	defer unlock()
	if _, err := p.settle(); err != nil {
		return Proposal{}, err
	}
	if isBindingElection(r.Proposal) && r.ID == "" {
		// A binding election chooses the document owner, whoever opens
		// it: it takes the next doc-owner-N id, one at a time.
		recs, err := p.all()
		if err != nil {
			return Proposal{}, err
		}
		n := 1
		for _, o := range recs {
			if isOwnerElection(o.Proposal) {
				if o.Status == StatusActive {
					return Proposal{}, refuse(ErrExists, "A document owner election is already open (%s): vote on it", o.ID)
				}
				n++
			}
		}
		r.ID = fmt.Sprintf("%s-%d", OwnerElectionPrefix, n)
		for {
			if b, err := p.s.get(proposalKey(r.ID)); err != nil {
				return Proposal{}, err
			} else if b == nil {
				break
			}
			n++
			r.ID = fmt.Sprintf("%s-%d", OwnerElectionPrefix, n)
		}
	}
	if r.ID == "" {
		if r.ID, err = p.newID(); err != nil {
			return Proposal{}, err
		}
	} else if b, err := p.s.get(proposalKey(r.ID)); err != nil {
		return Proposal{}, err
	} else if b != nil {
		return Proposal{}, refuse(ErrExists, "Proposal %s already exists", r.ID)
	}
	r.Pending = []notice{{From: System, Message: p.announce(r), Ref: "proposal:" + r.ID}}
	if err := p.commit(r); err != nil {
		return Proposal{}, err
	}
	return r.Proposal, nil
}

func (p *provider) newID() (string, error) {
	keys, err := p.s.keys("proposals/")
	if err != nil {
		return "", err
	}
	for n := 1; ; n++ {
		id := fmt.Sprintf("p%d", n)
		if !slices.Contains(keys, proposalKey(id)) {
			return id, nil
		}
	}
}

func (p *provider) newRecord(creator string, spec ProposalSpec) (*record, error) {
	bad := func(format string, a ...any) (*record, error) {
		return nil, fmt.Errorf("proposal: %w: %s", ErrInvalid, fmt.Sprintf(format, a...))
	}
	if spec.ID != "" && !proposalIDPattern().MatchString(spec.ID) {
		return bad("id %q: use letters, digits, ., _ or -", spec.ID)
	}
	if strings.TrimSpace(spec.Title) == "" {
		return bad("a title is required")
	}
	opts := slices.Clone(spec.Options)
	switch spec.Type {
	case Election:
		if len(opts) == 0 {
			for _, a := range p.cfg.Agents {
				opts = append(opts, Option{ID: a, Label: "@" + a})
			}
		}
	case Approval:
		if len(opts) == 0 {
			opts = []Option{{ID: "yes", Label: "Approve"}, {ID: "no", Label: "Reject"}}
		}
	case Decision, Assignment:
		if len(opts) == 0 {
			return bad("a %s needs options", spec.Type)
		}
	default:
		return bad("type %q: use election, decision, approval or assignment", spec.Type)
	}
	if len(opts) == 0 {
		return bad("no options (an election with no agents)")
	}
	if spec.Type == Election && spec.Binding && len(p.cfg.Agents) > 0 {
		for _, o := range opts {
			if !slices.Contains(p.cfg.Agents, o.ID) {
				return bad("option %q: a binding election chooses the document owner, one of the agents (%s)", o.ID, strings.Join(p.cfg.Agents, ", "))
			}
		}
	}
	seen := map[string]bool{}
	for i, o := range opts {
		if strings.TrimSpace(o.ID) == "" {
			return bad("option %d has no id", i+1)
		}
		if seen[o.ID] {
			return bad("option %q given twice", o.ID)
		}
		seen[o.ID] = true
		if o.Label == "" {
			opts[i].Label = o.ID
		}
	}
	res := spec.Resolution
	switch res.Type {
	case "":
		res.Type = Plurality
	case Plurality, Majority, Unanimous:
	default:
		return bad("resolution %q: use plurality, majority or unanimous", res.Type)
	}
	switch res.TieBreaker {
	case "", TieFirst, TieRandom, TieCreatorDecides:
	default:
		return bad("tie breaker %q: use first, random or creator-decides", res.TieBreaker)
	}
	if res.Quorum < 0 {
		return bad("quorum %d: give a positive number", res.Quorum)
	}
	now := p.now().UTC()
	r := &record{Proposal: Proposal{
		ID: spec.ID, Type: spec.Type, Title: spec.Title, Description: spec.Description,
		Options: opts, CreatedBy: creator, CreatedAt: now, Resolution: res, Binding: spec.Binding,
		Status: StatusActive, Result: Result{Votes: map[string]string{}, Counts: map[string]int{}},
	}}
	timeout := spec.Timeout
	if timeout == 0 {
		timeout = DefaultProposalTimeout
	}
	if timeout > 0 {
		t := now.Add(timeout)
		r.ExpiresAt = &t
	}
	return r, nil
}

// announce is the [PROPOSAL:id] message; it @mentions every agent but the
// creator so that their inboxes show it.
func (p *provider) announce(r *record) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[PROPOSAL:%s] %s\n", r.ID, r.Title)
	var who []string
	for _, a := range p.cfg.Agents {
		if a != r.CreatedBy {
			who = append(who, "@"+a)
		}
	}
	if len(who) > 0 {
		b.WriteString(strings.Join(who, " ") + "\n")
	}
	if r.Description != "" {
		b.WriteString(r.Description + "\n")
	}
	binding := "advisory"
	if r.Binding {
		binding = "binding"
	}
	fmt.Fprintf(&b, "Type: %s | Resolution: %s | %s", r.Type, r.Resolution.Type, binding)
	if r.ExpiresAt != nil {
		fmt.Fprintf(&b, " | Closes: %s", r.ExpiresAt.Format(time.RFC3339))
	}
	opts := make([]string, len(r.Options))
	for i, o := range r.Options {
		opts[i] = o.ID
		if o.Label != o.ID {
			opts[i] += " (" + o.Label + ")"
		}
	}
	fmt.Fprintf(&b, "\nOptions: %s\n", strings.Join(opts, ", "))
	fmt.Fprintf(&b, "Vote with: vote({ proposal: '%s', choice: '<option-id>' })", r.ID)
	return b.String()
}

// Vote

func (p *provider) Vote(ctx context.Context, voter, id, choice, reason string) (VoteOutcome, error) {
	if err := checkIdentity(voter); err != nil {
		return VoteOutcome{}, err
	}
	r, unlock, err := p.lockedProposal(id)
	if err != nil {
		return VoteOutcome{}, err
	}
	defer unlock()
	out := VoteOutcome{Votes: p.agentVotes(r), Quorum: p.quorum(r), Counted: p.countsTowardQuorum(voter)}
	if r.Status != StatusActive {
		out.Proposal = r.Proposal
		return out, refuse(ErrNotActive, "Proposal is %s", r.Status)
	}
	if !slices.ContainsFunc(r.Options, func(o Option) bool { return o.ID == choice }) {
		return out, refuse(ErrInvalidOption, "Invalid option. Valid: %s", r.optionIDs())
	}
	if prev, ok := r.Result.Votes[voter]; ok {
		out.Proposal = r.Proposal
		if prev == choice {
			out.Repeated = true
			return out, nil
		}
		return out, refuse(ErrVoteChanged, "You already voted for %q. Votes cannot be changed.", r.label(prev))
	}
	r.Result.Votes[voter] = choice
	r.Result.Counts[choice]++
	r.Voters = append(r.Voters, voter)
	if r.Type == Assignment {
		if r.Result.Assignments == nil {
			r.Result.Assignments = map[string][]string{}
		}
		r.Result.Assignments[choice] = append(r.Result.Assignments[choice], voter)
	}
	msg := fmt.Sprintf("[VOTE:%s] I vote for %q", r.ID, r.label(choice))
	if reason != "" {
		msg += " (" + reason + ")"
	}
	r.Pending = append(r.Pending, notice{From: voter, Message: msg, Ref: "vote:" + r.ID + ":" + voter})
	out.Votes = p.agentVotes(r)
	if out.Votes >= out.Quorum {
		p.resolve(r, "votes")
	}
	if err := p.commit(r); err != nil {
		return out, err
	}
	out.Proposal = r.Proposal
	return out, nil
}

func (p *provider) Proposal(ctx context.Context, id string) (Proposal, error) {
	r, unlock, err := p.lockedProposal(id)
	if err != nil {
		return Proposal{}, err
	}
	defer unlock()
	return r.Proposal, nil
}

// lockedProposal takes the state lock, settles the proposals that are
// due and loads proposal id. The caller unlocks; on error the lock is
// released already.
func (p *provider) lockedProposal(id string) (*record, func(), error) {
	unlock, err := p.s.lock(lockState)
	if err != nil {
		return nil, nil, err
	}
	if _, err := p.settle(); err != nil {
		unlock()
		return nil, nil, err
	}
	r, err := p.load(id)
	if err != nil {
		unlock()
		return nil, nil, err
	}
	return r, unlock, nil
}

func (p *provider) Proposals(ctx context.Context, activeOnly bool) ([]Proposal, error) {
	unlock, err := p.s.lock(lockState)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if _, err := p.settle(); err != nil {
		return nil, err
	}
	recs, err := p.all()
	if err != nil {
		return nil, err
	}
	out := []Proposal{}
	for _, r := range recs {
		if !activeOnly || r.Status == StatusActive {
			out = append(out, r.Proposal)
		}
	}
	return out, nil
}

func (p *provider) ActiveProposals(ctx context.Context) (bool, error) {
	ps, err := p.Proposals(ctx, true)
	return len(ps) > 0, err
}

func (p *provider) CancelProposal(ctx context.Context, who, id, reason string) (Proposal, error) {
	if err := checkIdentity(who); err != nil {
		return Proposal{}, err
	}
	r, unlock, err := p.lockedProposal(id)
	if err != nil {
		return Proposal{}, err
	}
	defer unlock()
	if r.CreatedBy != who && who != System {
		return r.Proposal, refuse(ErrNotCreator, "Only creator can cancel")
	}
	if r.Status != StatusActive {
		return r.Proposal, refuse(ErrNotActive, "Proposal is %s", r.Status)
	}
	r.Status = StatusCancelled
	now := p.now().UTC()
	r.Result.ResolvedAt, r.Result.ResolvedBy = &now, "creator"
	if who == System {
		r.Result.ResolvedBy = System
	}
	msg := fmt.Sprintf("[PROPOSAL:%s] Cancelled", r.ID)
	if reason != "" {
		msg += ": " + reason
	}
	r.Pending = append(r.Pending, notice{From: System, Message: msg, Ref: "cancelled:" + r.ID})
	if err := p.commit(r); err != nil {
		return r.Proposal, err
	}
	return r.Proposal, nil
}

func (p *provider) StartOwnerElection(ctx context.Context, timeout time.Duration) (Proposal, bool, error) {
	if len(p.cfg.Agents) < 2 || p.cfg.DocumentOwner != "" {
		return Proposal{}, false, nil
	}
	unlock, err := p.s.lock(lockState)
	if err != nil {
		return Proposal{}, false, err
	}
	if _, err := p.settle(); err != nil {
		unlock()
		return Proposal{}, false, err
	}
	decided, err := p.s.get(ownerKey)
	if err != nil {
		unlock()
		return Proposal{}, false, err
	}
	recs, err := p.all()
	unlock()
	if err != nil || decided != nil {
		return Proposal{}, false, err
	}
	n := 1
	for _, r := range recs {
		if isOwnerElection(r.Proposal) {
			if r.Status == StatusActive {
				return r.Proposal, true, nil
			}
			n++
		}
	}
	pr, err := p.CreateProposal(ctx, System, ProposalSpec{
		ID:          fmt.Sprintf("%s-%d", OwnerElectionPrefix, n),
		Type:        Election,
		Title:       "Document Owner Election",
		Description: "Elect an agent to maintain workflow documents. The winner will have exclusive write access.",
		Resolution:  Resolution{Type: Plurality, TieBreaker: TieFirst},
		Binding:     true,
		Timeout:     timeout,
	})
	if errors.Is(err, ErrExists) { // another process opened it meanwhile
		pr, err = p.Proposal(ctx, fmt.Sprintf("%s-%d", OwnerElectionPrefix, n))
	}
	return pr, err == nil, err
}
