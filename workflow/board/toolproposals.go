package board

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

func (t *Tools) proposalCreate(ctx context.Context, who string, args json.RawMessage) (string, error) {
	var a struct {
		Type        string   `json:"type"`
		Title       string   `json:"title"`
		Description string   `json:"description"`
		Options     []Option `json:"options"`
		Resolution  *struct {
			Type       string `json:"type"`
			Quorum     number `json:"quorum"`
			TieBreaker string `json:"tieBreaker"`
		} `json:"resolution"`
		Binding        flag   `json:"binding"`
		TimeoutSeconds number `json:"timeoutSeconds"`
	}
	if err := decode(args, &a); err != nil {
		return "", err
	}
	spec := ProposalSpec{Type: a.Type, Title: a.Title, Description: a.Description, Options: a.Options, Binding: bool(a.Binding)}
	if a.Resolution != nil {
		spec.Resolution = Resolution{Type: a.Resolution.Type, Quorum: int(a.Resolution.Quorum.n), TieBreaker: a.Resolution.TieBreaker}
	}
	if a.TimeoutSeconds.set {
		if a.TimeoutSeconds.n <= 0 {
			return "", fmt.Errorf("%w: timeoutSeconds must be positive", errArgs)
		}
		spec.Timeout = time.Duration(a.TimeoutSeconds.n) * time.Second
	}
	pr, err := t.p.CreateProposal(ctx, who, spec)
	if err != nil {
		return "", err
	}
	return jsonText(pr)
}

func (t *Tools) vote(ctx context.Context, who string, args json.RawMessage) (string, error) {
	var a struct {
		Proposal string `json:"proposal"`
		Choice   string `json:"choice"`
		Reason   string `json:"reason"`
	}
	if err := decode(args, &a); err != nil {
		return "", err
	}
	if err := required("proposal", a.Proposal); err != nil {
		return "", err
	}
	if err := required("choice", a.Choice); err != nil {
		return "", err
	}
	out, err := t.p.Vote(ctx, who, a.Proposal, a.Choice, a.Reason)
	if err != nil {
		return "", err
	}
	label := a.Choice
	for _, o := range out.Proposal.Options {
		if o.ID == a.Choice {
			label = o.Label
		}
	}
	if out.Repeated {
		return fmt.Sprintf("Vote already recorded for %q.", label), nil
	}
	msg := fmt.Sprintf("Vote recorded. %d/%d votes received.", out.Votes, out.Quorum)
	if !out.Counted {
		msg = fmt.Sprintf("Vote recorded; %s is not an agent of the workflow (%s): it counts in the result, not toward the quorum. %d/%d votes received.",
			who, strings.Join(t.p.Config().Agents, ", "), out.Votes, out.Quorum)
	}
	if out.Proposal.Status == StatusResolved {
		if w := out.Proposal.Result.Winner; w != "" {
			msg += fmt.Sprintf(" Resolved: %s.", w)
		} else {
			msg += " Resolved with no winner."
		}
	}
	return msg, nil
}

func (t *Tools) proposalStatus(ctx context.Context, who string, args json.RawMessage) (string, error) {
	var a struct {
		Proposal string `json:"proposal"`
	}
	if err := decode(args, &a); err != nil {
		return "", err
	}
	if a.Proposal != "" {
		pr, err := t.p.Proposal(ctx, a.Proposal)
		if err != nil {
			return "", err
		}
		return jsonText(pr)
	}
	active, err := t.p.Proposals(ctx, true)
	if err != nil {
		return "", err
	}
	return jsonText(active)
}

func (t *Tools) proposalCancel(ctx context.Context, who string, args json.RawMessage) (string, error) {
	var a struct {
		Proposal string `json:"proposal"`
		Reason   string `json:"reason"`
	}
	if err := decode(args, &a); err != nil {
		return "", err
	}
	if err := required("proposal", a.Proposal); err != nil {
		return "", err
	}
	if _, err := t.p.CancelProposal(ctx, who, a.Proposal, a.Reason); err != nil {
		return "", err
	}
	return "Proposal cancelled", nil
}
