package board

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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
	b, err := p.s.Get(proposalKey(id))
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
	return p.s.Put(proposalKey(r.ID), append(b, '\n'))
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
	keys, err := p.s.Keys("proposals/")
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
		if err := p.s.Put(ownerKey, append(b, '\n')); err != nil {
			return err
		}
	}
	if err := p.save(r); err != nil {
		return err
	}
	return p.flush(r)
}

func (p *provider) Settle(ctx context.Context) ([]Proposal, error) {
	unlock, err := p.s.Lock(lockState)
	if err != nil {
		return nil, err
	}
	defer unlock()
	return p.settle()
}

// CreateProposal

// Vote

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
	unlock, err := p.s.Lock(lockState)
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
	unlock, err := p.s.Lock(lockState)
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
	unlock, err := p.s.Lock(lockState)
	if err != nil {
		return Proposal{}, false, err
	}
	if _, err := p.settle(); err != nil {
		unlock()
		return Proposal{}, false, err
	}
	decided, err := p.s.Get(ownerKey)
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
