package tool

import (
	"errors"
	"fmt"
)

// Sentinel errors of tool definitions (Expand) and calls (Build). Errors
// returned by this package wrap one of them, so callers test with errors.Is.
var (
	// ErrMode: not exactly one of command:, exec:, shell:.
	ErrMode = errors.New("tool must specify exactly one of: exec, shell, or command")
	// ErrEmptyTemplate: exec: or shell: given as an empty string.
	ErrEmptyTemplate = errors.New("empty exec: or shell: template")
	// ErrMetachar: an operator, redirect, expansion or substitution in an
	// exec: template.
	ErrMetachar = errors.New("shell metacharacter in exec: template")
	// ErrTemplate: a template that does not parse, or a placeholder where
	// it cannot be made safe.
	ErrTemplate = errors.New("invalid template")
	// ErrRawInExec: ${p:raw} used outside shell: mode.
	ErrRawInExec = errors.New(":raw is only valid in shell: mode")
	// ErrOverride: an explicit parameter tries to change an inferred
	// inject_as, position or :raw.
	ErrOverride = errors.New("cannot override inferred parameter property")
	// ErrUndefinedParameter: an explicit parameter the template does not
	// define.
	ErrUndefinedParameter = errors.New("undefined parameter")
	// ErrParameter: an invalid parameter definition (bad type, inject_as,
	// missing option_name, duplicate name, two stdin parameters …).
	ErrParameter = errors.New("invalid parameter")

	// ErrMissingArgument: a required argument is absent from a call.
	ErrMissingArgument = errors.New("missing required argument")
	// ErrUnknownArgument: a call names an argument the tool does not have.
	ErrUnknownArgument = errors.New("unknown argument")
	// ErrBadArgument: arguments that are not a JSON object, or a value that
	// is not a string, number or boolean, or contains a NUL byte.
	ErrBadArgument = errors.New("bad argument")
)

// ParamError is an error about one parameter of a definition; the agent
// loader uses Param to point at the parameter's line.
type ParamError struct {
	Param string
	Err   error
}

func (e *ParamError) Error() string { return e.Err.Error() }
func (e *ParamError) Unwrap() error { return e.Err }

// kindError is an error whose message is its own text but which matches a
// sentinel with errors.Is, so users read "Shell metacharacter '|' …" and
// not the sentinel's text in front of it.
type kindError struct {
	kind error
	msg  string
}

func (e *kindError) Error() string { return e.msg }
func (e *kindError) Unwrap() error { return e.kind }

func errorf(kind error, format string, args ...any) error {
	return &kindError{kind: kind, msg: fmt.Sprintf(format, args...)}
}
