package main

import (
	"context"
	"net"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/grpc"

	"github.com/deltakit/delta/lib/runs"
)

// grpcReceiver is an OTLP/gRPC trace service in the test process.
type grpcReceiver struct {
	coltracepb.UnimplementedTraceServiceServer
	mu    sync.Mutex
	spans []*tracepb.Span
}

func (g *grpcReceiver) Export(_ context.Context, req *coltracepb.ExportTraceServiceRequest) (*coltracepb.ExportTraceServiceResponse, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, rs := range req.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			g.spans = append(g.spans, ss.Spans...)
		}
	}
	return &coltracepb.ExportTraceServiceResponse{}, nil
}

// TestExportGRPC: OTEL_EXPORTER_OTLP_PROTOCOL=grpc sends the same spans
// over OTLP/gRPC.
func TestExportGRPC(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	g := &grpcReceiver{}
	coltracepb.RegisterTraceServiceServer(srv, g)
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(srv.Stop)

	dir := fixtureRun(t, "R1", runs.Completed, allEvents...)
	r := newReceiver(t) // export sets the HTTP variables; gRPC's replace them below
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://"+l.Addr().String())
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
	runOtel(t, "export", dir)
	if len(r.received()) != 0 {
		t.Errorf("spans went over HTTP with the grpc protocol")
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	want := []string{"chat gpt-5-2025", "chat gpt-5-2025", "execute_tool shell", "invoke_agent coder", "iteration 1", "iteration 2"}
	if diff := cmp.Diff(want, names(g.spans)); diff != "" {
		t.Errorf("span names over gRPC (-want +got):\n%s", diff)
	}
}
