package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/deltakit/delta/lib/cli"
)

// readMessage is the message of run and continue: -m TEXT, -m - (all of
// stdin) or --message-file FILE; "" when none was given. A final line
// break is not part of it.
func readMessage(text, file string, in io.Reader) (string, error) {
	switch {
	case text != "" && file != "":
		return "", cli.Errorf(cli.ExitUsage, "give the message one way: -m TEXT, -m - (stdin) or --message-file FILE", "both -m and --message-file given")
	case file != "":
		data, err := os.ReadFile(file)
		if err != nil {
			return "", cli.Errorf(cli.ExitUsage, "", "--message-file: %v", err)
		}
		return strings.TrimRight(string(data), "\r\n"), nil
	case text == "-":
		data, err := io.ReadAll(in)
		if err != nil {
			return "", fmt.Errorf("read the message from stdin: %w", err)
		}
		return strings.TrimRight(string(data), "\r\n"), nil
	}
	return text, nil
}
