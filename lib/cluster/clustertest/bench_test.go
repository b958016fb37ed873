package clustertest_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/deltakit/delta/lib/cluster"
	"github.com/deltakit/delta/lib/cluster/clustertest"
)

// A journal-line-sized payload (an ACTION_RESULT of a few hundred bytes).
var benchLine = []byte(fmt.Sprintf(`{"seq":0,"type":"ACTION_RESULT","payload":{"call_id":"c1","output":%q}}`, make([]byte, 400)))

// benchAppends times b.N conditional appends to one run and reports
// their p50 and p99.
func benchAppends(b *testing.B, c *cluster.Cluster) {
	ctx := context.Background()
	w, err := c.OpenJournal(ctx, "bench", 1)
	if err != nil {
		b.Fatal(err)
	}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 1; i <= b.N; i++ {
		start := time.Now()
		if err := w.Append(ctx, benchLine, i); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}

// BenchmarkClusterAppend is the conditional journal append (the fence,
// msg-id dedupe, sync always) on one node and on three with R3: what a
// mirrored run adds per synced event.
func BenchmarkClusterAppend(b *testing.B) {
	b.Run("nodes=1", func(b *testing.B) {
		one := clustertest.StartSingle(b, cluster.Settings{})
		benchAppends(b, clustertest.Connect(b, one.URL))
	})
	b.Run("nodes=3", func(b *testing.B) {
		three := clustertest.StartThree(b, cluster.Settings{})
		benchAppends(b, clustertest.Connect(b, three.URLs()))
	})
}
