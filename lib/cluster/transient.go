package cluster

import (
	"context"
	"errors"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// TransientWait bounds how long a read or lookup keeps retrying errors a
// cluster gives while it recovers (a node killed, a leader being elected,
// a connection moving to another node).
const TransientWait = 30 * time.Second

// transient reports whether err is one a cluster gives only while it
// recovers: JetStream temporarily unavailable (503), no responders for
// an API request, a request that timed out.
func transient(err error) bool {
	var apiErr *jetstream.APIError
	if errors.As(err, &apiErr) {
		return apiErr.Code == 503
	}
	return errors.Is(err, nats.ErrNoResponders) || errors.Is(err, nats.ErrTimeout) ||
		errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrConnectionReconnecting) ||
		errors.Is(err, jetstream.ErrNoStreamResponse)
}

// Retrying calls try, each attempt bounded by 5 s, until it succeeds,
// fails with an error that is not transient, ctx ends, or TransientWait
// has passed; it returns try's last error.
func Retrying[T any](ctx context.Context, try func(context.Context) (T, error)) (T, error) {
	deadline := time.Now().Add(TransientWait)
	for attempt := 0; ; attempt++ {
		actx, cancel := context.WithTimeout(ctx, 5*time.Second)
		v, err := try(actx)
		cancel()
		if err == nil || !transient(err) || ctx.Err() != nil || time.Now().After(deadline) {
			return v, err
		}
		backoff(ctx, attempt)
	}
}
