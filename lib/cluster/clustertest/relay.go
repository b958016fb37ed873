package clustertest

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"strings"
	"sync"
)

// relay is one node's inbound route relay: every route connection to the
// node goes through it (the node advertises the relay's address, so
// gossip cannot teach another node a way around it). Each relayed
// connection is tagged with the id of the server that dialled it, read
// from the route's first CONNECT line, so that isolating a node can cut
// the connections it opened as well as those made to it.
type relay struct {
	ln     net.Listener
	target func() string     // the node's real route address, "" while down
	allow  func(string) bool // may a route from this dialler's server id pass now?

	mu    sync.Mutex
	conns map[*relayed]bool
}

// relayed is one connection through a relay: the dialler's side, the
// node's side, and the dialler's server id once its CONNECT was read.
type relayed struct {
	down, up net.Conn
	dialer   string
}

func (c *relayed) close() { c.down.Close(); c.up.Close() }

func newRelay(target func() string, allow func(string) bool) (*relay, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &relay{ln: ln, target: target, allow: allow, conns: map[*relayed]bool{}}
	go r.accept()
	return r, nil
}

func (r *relay) addr() string { return r.ln.Addr().String() }

func (r *relay) accept() {
	for {
		down, err := r.ln.Accept()
		if err != nil {
			return // closed
		}
		go r.serve(down)
	}
}

// serve relays one route connection. The node speaks first (INFO); the
// dialler's first line is its CONNECT, which names it.
func (r *relay) serve(down net.Conn) {
	target := r.target()
	if target == "" {
		down.Close()
		return
	}
	up, err := net.Dial("tcp", target)
	if err != nil {
		down.Close()
		return
	}
	c := &relayed{down: down, up: up}
	r.mu.Lock()
	r.conns[c] = true
	r.mu.Unlock()
	defer func() {
		c.close()
		r.mu.Lock()
		delete(r.conns, c)
		r.mu.Unlock()
	}()
	go func() { _, _ = io.Copy(down, up); c.close() }()
	br := bufio.NewReader(down)
	line, err := br.ReadString('\n')
	if err != nil {
		return
	}
	id := connectName(line)
	r.mu.Lock()
	c.dialer = id
	ok := r.conns[c] && r.allow(id)
	r.mu.Unlock()
	if !ok {
		return
	}
	if _, err := io.WriteString(up, line); err != nil {
		return
	}
	_, _ = io.Copy(up, br)
}

// connectName is the "name" of a route's CONNECT line (the server id).
func connectName(line string) string {
	rest, ok := strings.CutPrefix(strings.TrimSpace(line), "CONNECT ")
	if !ok {
		return ""
	}
	var info struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal([]byte(rest), &info)
	return info.Name
}

// cut closes the connections whose dialler id matches (all of them when
// match is nil).
func (r *relay) cut(match func(dialer string) bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for c := range r.conns {
		if match == nil || match(c.dialer) {
			c.close()
			delete(r.conns, c)
		}
	}
}

func (r *relay) close() {
	r.ln.Close()
	r.cut(nil)
}
