package clitest

import (
	"net"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// WithPort sets $PORT to a TCP port on loopback that accepts connections
// (and closes them) for as long as t runs: what a script's tool connects
// to, to see the sandbox refuse or allow it.
func WithPort(t *testing.T) Option {
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	return WithSetup(func(env *testscript.Env) error {
		env.Setenv("PORT", port)
		return nil
	})
}
