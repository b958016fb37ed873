package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"

	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/runs"
)

// Claude Code's --input-format stream-json: stdin carries user messages,
// one JSON line each, {"type":"user","message":{"role":"user","content":
// TEXT or [{"type":"text","text":TEXT} …]}}. The first is the task (unless
// -m gives it); each later one continues the same run once the previous
// invocation has ended, as "delta continue -m" would: it is a follow-up
// after an answer, the answer to a question or approval the run waits
// for, or a new instruction after a failure. The run ends with stdin.

// streamInput reads the user messages of stdin.
type streamInput struct {
	sc   *bufio.Scanner
	line int
}

func newStreamInput(r io.Reader) *streamInput {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 16<<20)
	return &streamInput{sc: sc}
}

// inputLine is one line of the input stream.
type inputLine struct {
	Type    string `json:"type"`
	Message struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

// next is the next message's text; io.EOF at the end of stdin.
func (s *streamInput) next() (string, error) {
	for s.sc.Scan() {
		s.line++
		raw := bytes.TrimSpace(s.sc.Bytes())
		if len(raw) == 0 {
			continue
		}
		var l inputLine
		if err := json.Unmarshal(raw, &l); err != nil {
			return "", cli.Errorf(cli.ExitUsage, `each line: {"type":"user","message":{"role":"user","content":"TEXT"}}`, "--input-format stream-json: stdin line %d is not JSON: %v", s.line, err)
		}
		if l.Type != "user" {
			return "", cli.Errorf(cli.ExitUsage, `only user messages are read: {"type":"user","message":{"role":"user","content":"TEXT"}}`, "--input-format stream-json: stdin line %d has type %q", s.line, l.Type)
		}
		return contentText(l.Message.Content), nil
	}
	if err := s.sc.Err(); err != nil {
		return "", err
	}
	return "", io.EOF
}

// contentText is a message's content as text: a string, or the text
// blocks of a list joined by blank lines.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct{ Type, Text string }
	json.Unmarshal(raw, &blocks)
	var parts []string
	for _, b := range blocks {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n\n")
}

// runStream is run with --input-format stream-json: a run, then a continue
// of it per further message. An invocation that ends the run for good (an
// interruption, a configuration or usage error) stops there; one that
// fails or pauses is reported and the next message continues it.
func (c *RunCmd) runStream(std cli.Stdio) error {
	in := newStreamInput(std.In)
	first, err := in.next()
	if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	var queued []string
	switch {
	case c.Message == "" && c.MessageFile == "":
		c.Message = first
	case first != "":
		queued = append(queued, first)
	}
	if c.RunID == nil {
		id := runs.NewID()
		c.RunID = &id
	}
	inner := cli.Stdio{In: strings.NewReader(""), Out: std.Out, Err: std.Err} // stdin is the stream's
	err = c.runOnce(inner)
	for {
		if code := errorExitCode(err); code == runs.ExitInterrupted || code == runs.ExitConfig || code == cli.ExitUsage {
			return err
		}
		var msg string
		if len(queued) > 0 {
			msg, queued = queued[0], queued[1:]
		} else {
			next, nerr := in.next()
			if errors.Is(nerr, io.EOF) {
				return err // the last invocation's outcome is the exit
			}
			if nerr != nil {
				return nerr
			}
			msg = next
		}
		if err != nil {
			cli.Report("delta-run", std.Err, err) // as if it ended here
		}
		err = c.continueWith(msg, inner)
	}
}

// continueWith continues the stream's run with msg, with run's options.
func (c *RunCmd) continueWith(msg string, std cli.Stdio) error {
	cont := ContinueCmd{RunID: *c.RunID, WorkDir: c.WorkDir, Message: msg, Verbose: c.Verbose, Format: c.Format,
		approvalFlags: c.approvalFlags, FrontEnd: c.FrontEnd, LLM: c.LLM, MaxCost: c.MaxCost, MaxIterations: c.MaxIterations, mirroredFlags: c.mirroredFlags}
	return cont.Run(std)
}

// errorExitCode is the exit code an error carries (0 for nil, 1 without
// one).
func errorExitCode(err error) int {
	if err == nil {
		return 0
	}
	var coded interface{ ExitCode() int }
	if errors.As(err, &coded) {
		return coded.ExitCode()
	}
	return runs.ExitFailed
}
