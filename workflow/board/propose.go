package board

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

func (p *provider) CreateProposal(ctx context.Context, creator string, spec ProposalSpec) (Proposal, error) {
	if err := checkIdentity(creator); err != nil {
		return Proposal{}, err
	}
	r, err := p.newRecord(creator, spec)
	if err != nil {
		return Proposal{}, err
	}
	unlock, err := p.s.Lock(lockState)
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
			if b, err := p.s.Get(proposalKey(r.ID)); err != nil {
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
	} else if b, err := p.s.Get(proposalKey(r.ID)); err != nil {
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
	keys, err := p.s.Keys("proposals/")
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
	if spec.ID != "" && !proposalIDPattern().MatchString(spec.ID) {
		return nil, badProposal("id %q: use letters, digits, ., _ or -", spec.ID)
	}
	if strings.TrimSpace(spec.Title) == "" {
		return nil, badProposal("a title is required")
	}
	opts, err := p.options(spec)
	if err != nil {
		return nil, err
	}
	res, err := checkResolution(spec.Resolution)
	if err != nil {
		return nil, err
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

// badProposal is an ErrInvalid for a proposal that cannot be created.
func badProposal(format string, a ...any) error {
	return fmt.Errorf("proposal: %w: %s", ErrInvalid, fmt.Sprintf(format, a...))
}

// options are a proposal's options: its own, checked, or its type's
// defaults (every agent for an election, yes and no for an approval).
func (p *provider) options(spec ProposalSpec) ([]Option, error) {
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
			return nil, badProposal("a %s needs options", spec.Type)
		}
	default:
		return nil, badProposal("type %q: use election, decision, approval or assignment", spec.Type)
	}
	if len(opts) == 0 {
		return nil, badProposal("no options (an election with no agents)")
	}
	if spec.Type == Election && spec.Binding && len(p.cfg.Agents) > 0 {
		for _, o := range opts {
			if !slices.Contains(p.cfg.Agents, o.ID) {
				return nil, badProposal("option %q: a binding election chooses the document owner, one of the agents (%s)", o.ID, strings.Join(p.cfg.Agents, ", "))
			}
		}
	}
	seen := map[string]bool{}
	for i, o := range opts {
		if strings.TrimSpace(o.ID) == "" {
			return nil, badProposal("option %d has no id", i+1)
		}
		if seen[o.ID] {
			return nil, badProposal("option %q given twice", o.ID)
		}
		seen[o.ID] = true
		if o.Label == "" {
			opts[i].Label = o.ID
		}
	}
	return opts, nil
}

// checkResolution checks how a proposal is resolved (plurality by
// default).
func checkResolution(res Resolution) (Resolution, error) {
	switch res.Type {
	case "":
		res.Type = Plurality
	case Plurality, Majority, Unanimous:
	default:
		return res, badProposal("resolution %q: use plurality, majority or unanimous", res.Type)
	}
	switch res.TieBreaker {
	case "", TieFirst, TieRandom, TieCreatorDecides:
	default:
		return res, badProposal("tie breaker %q: use first, random or creator-decides", res.TieBreaker)
	}
	if res.Quorum < 0 {
		return res, badProposal("quorum %d: give a positive number", res.Quorum)
	}
	return res, nil
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
