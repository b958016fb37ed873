package board

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
)

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
