package host

import (
	"bytes"
	"io"
	"path/filepath"
	"sync"

	hclog "github.com/hashicorp/go-hclog"
)

// prefixWriter writes each complete line it receives to w once, prefixed
// ("[plugin coding] …"), so that plugin output is told apart from the
// run's own progress lines on the shared stderr. Partial lines wait for
// their newline; writers may be concurrent.
type prefixWriter struct {
	mu     sync.Mutex
	w      io.Writer
	prefix []byte
	buf    []byte
}

func newPrefixWriter(w io.Writer, prefix string) *prefixWriter {
	return &prefixWriter{w: w, prefix: []byte(prefix)}
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.buf = append(p.buf, b...)
	for {
		i := bytes.IndexByte(p.buf, '\n')
		if i < 0 {
			break
		}
		line := append(append(append([]byte{}, p.prefix...), p.buf[:i]...), '\n')
		p.buf = p.buf[i+1:]
		if _, err := p.w.Write(line); err != nil {
			return len(b), err
		}
	}
	return len(b), nil
}

// pluginLogger is go-plugin's logger for one plugin: its own messages go to
// out at warning level (debug with verbose), without the "plugin process
// exited" error a crash adds (the crash already reaches the model and the
// journal as an error observation) unless verbose. go-plugin copies the
// plugin's stderr to out itself and then re-logs every line through the
// logger named after the binary; that second copy is switched off here so
// each line is printed once.
func pluginLogger(name, binPath string, out io.Writer, verbose bool) hclog.Logger {
	level := hclog.Warn
	if verbose {
		level = hclog.Debug
	}
	return stderrQuiet{
		Logger: hclog.New(&hclog.LoggerOptions{
			Name: "plugin." + name, Output: out, Level: level, DisableTime: true,
			Exclude: func(_ hclog.Level, msg string, _ ...any) bool {
				return !verbose && msg == "plugin process exited"
			},
		}),
		stderrName: filepath.Base(binPath),
	}
}

// stderrQuiet is an hclog.Logger whose sub-logger named stderrName (the
// one go-plugin re-logs plugin stderr through) is off.
type stderrQuiet struct {
	hclog.Logger
	stderrName string
}

func (l stderrQuiet) Named(name string) hclog.Logger {
	if name == l.stderrName {
		return hclog.New(&hclog.LoggerOptions{Level: hclog.Off, Output: io.Discard})
	}
	return stderrQuiet{Logger: l.Logger.Named(name), stderrName: l.stderrName}
}
