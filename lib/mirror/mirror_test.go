package mirror

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"testing"
)

func TestFramesRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	frames := []Frame{
		{Verb: Append, N: 1, Data: []byte(`{"seq":1,"type":"ENGINE_START","x":"a\nb <&>"}`)},
		{Verb: Sync, N: 7},
		{Verb: Fenced, Data: []byte("lease lost\nreally")},
		{Verb: Close},
	}
	for _, f := range frames {
		if err := w.Write(f); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.WriteReady(ReadyInfo{Epoch: 3, ClusterLastSeq: 2}); err != nil {
		t.Fatal(err)
	}
	r := NewReader(&buf)
	for _, want := range frames {
		got, err := r.Read()
		if err != nil {
			t.Fatal(err)
		}
		if want.Data == nil {
			want.Data = []byte{}
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("read %+v, want %+v", got, want)
		}
	}
	ready, err := r.Read()
	if err != nil || ready.Verb != Ready || string(ready.Data) != `{"epoch":3,"cluster_last_seq":2,"backfilled":0}` {
		t.Fatalf("ready frame %q %q, %v", ready.Verb, ready.Data, err)
	}
	if _, err := r.Read(); err != io.EOF {
		t.Fatalf("after the last frame: %v, want io.EOF", err)
	}
}

func TestMalformedFramesAreRefused(t *testing.T) {
	for _, in := range []string{
		"append 1\n", "append x 0\n\n", "bogus 1 0\n\n", "append 1 5\nab\n", "append 1 2\nabc\n",
		"append 1 -1\n\n", "append  1 0\n\n", "append 1 0 0\n\n", "sync 1 99999999999\n",
	} {
		_, err := NewReader(bytes.NewBufferString(in)).Read()
		if !errors.Is(err, ErrFrame) {
			t.Errorf("%q: %v, want ErrFrame", in, err)
		}
	}
}

func TestOversizedPayloadIsNotWritten(t *testing.T) {
	var buf bytes.Buffer
	if err := NewWriter(&buf).Write(Frame{Verb: Append, Data: make([]byte, MaxPayload+1)}); err == nil || buf.Len() != 0 {
		t.Fatalf("an oversized frame was written (%d bytes, %v)", buf.Len(), err)
	}
}

// FuzzReader: whatever the bytes, Read returns frames or an error, never
// panics, and a frame it returns writes back to the same bytes.
func FuzzReader(f *testing.F) {
	for _, seed := range []string{
		"append 1 12\n{\"seq\":1,\"\"}\n", "sync 3 0\n\n", "close 0 0\n\n", "ready 0 10\n{\"epoch\":1}\n",
		"fenced 0 4\nlost\n", "sync 0 08\n00000000\n0", "sync +1 0\n\n", "synced 9 0\n\nsynced 10 0\n\n", "append 1\n", "append 1 5\nab", "\n", "error 0 3\na\nb\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r := NewReader(bytes.NewReader(data))
		var out bytes.Buffer
		w := NewWriter(&out)
		for {
			fr, err := r.Read()
			if err != nil {
				break
			}
			if err := w.Write(fr); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.HasPrefix(data, out.Bytes()) {
			t.Fatalf("frames read from %q write back as %q", data, out.Bytes())
		}
	})
}
