package llm

import "context"

// PartialAnswer is the text of a model answer whose stream broke off
// mid-answer, reported by a provider before it asks again (or gives up):
// no THOUGHT will hold that text, so a caller that wants it kept (the
// engine journals it) must take it here.
type PartialAnswer struct {
	Attempt int    // the attempt that broke off, from 1
	Text    string // what had arrived
	Err     error  // why it broke off
}

type partialKey struct{}

// WithPartialNotify returns a context under which providers call notify
// with the text of every answer that broke off mid-stream.
func WithPartialNotify(ctx context.Context, notify func(PartialAnswer)) context.Context {
	return context.WithValue(ctx, partialKey{}, notify)
}

// NotifyPartial reports p to the context's notify function, if any.
func NotifyPartial(ctx context.Context, p PartialAnswer) {
	if notify, ok := ctx.Value(partialKey{}).(func(PartialAnswer)); ok {
		notify(p)
	}
}
