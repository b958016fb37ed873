package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// pipedInputWait is how long a run waits for a pipe on stdin to deliver
// its first byte (or its end) before it goes on without it. Once anything
// arrives, the whole of stdin is read, however slowly it comes; the wait
// only keeps a pipe that nobody writes to (a CI runner's, a parent that
// never closes its end) from hanging the run. DELTA_STDIN_WAIT changes it.
const pipedInputWait = 3 * time.Second

// pipedInput is what stdin carries for the message when it is a pipe or a
// regular file ("cat log | delta run -m summarize", "< notes.txt"), ""
// for a terminal, /dev/null or a pipe that stays silent past the wait (a
// note on stderr says so). Like Claude Code, Codex and llm, a run appends
// it to -m's message.
func pipedInput(in io.Reader, stderr io.Writer) (string, error) {
	f, ok := in.(*os.File)
	if !ok {
		return "", nil
	}
	fi, err := f.Stat()
	if err != nil {
		return "", nil // a closed stdin holds nothing to read
	}
	mode := fi.Mode()
	switch {
	case mode.IsRegular():
	case mode&(os.ModeNamedPipe|os.ModeSocket) != 0:
		wait := stdinWait()
		ready, err := readable(f, wait)
		if err != nil {
			return "", fmt.Errorf("wait for stdin: %w", err)
		}
		if !ready {
			fmt.Fprintf(stderr, "delta-run: note: stdin is a pipe with nothing in it after %s, so the message is -m's alone (close stdin or give </dev/null to skip the wait; -m - waits for the whole message)\n", wait)
			return "", nil
		}
	default:
		return "", nil // a terminal, /dev/null
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return "", fmt.Errorf("read piped input from stdin: %w", err)
	}
	return strings.TrimRight(string(data), "\r\n"), nil
}

// stdinWait is DELTA_STDIN_WAIT (a duration such as 10s) or pipedInputWait.
func stdinWait() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("DELTA_STDIN_WAIT")); err == nil && d >= 0 {
		return d
	}
	return pipedInputWait
}

// readable reports whether f has data or its end within d.
func readable(f *os.File, d time.Duration) (bool, error) {
	fds := []unix.PollFd{{Fd: int32(f.Fd()), Events: unix.POLLIN}}
	deadline := time.Now().Add(d)
	for {
		left := time.Until(deadline)
		if left < 0 {
			left = 0
		}
		n, err := unix.Poll(fds, int(left.Milliseconds()))
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return false, err
		}
		return n > 0, nil
	}
}

// withPipedInput appends stdin's content to a message given with -m or
// --message-file (not -m -, which is all of stdin already, and not with
// -i, where stdin answers ask_human), separated by a blank line.
func withPipedInput(msg, flag string, interactive bool, std io.Reader, stderr io.Writer) (string, error) {
	if flag == "-" || interactive || msg == "" {
		return msg, nil
	}
	piped, err := pipedInput(std, stderr)
	if err != nil || strings.TrimSpace(piped) == "" {
		return msg, err
	}
	return msg + "\n\n" + piped, nil
}
