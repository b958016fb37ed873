// Package tool holds Delta's tool model (seeds/000 §2.2): the three
// definition forms (command+parameters, exec:, shell:) expanded to one
// internal representation, the JSON Schema a model sees, and the building of
// one call's argv and stdin from JSON arguments.
package tool

// InjectAs says how a parameter's value reaches the command.
type InjectAs string

// Injection modes of seeds/000 §2.2.3.
const (
	Argument InjectAs = "argument"
	Stdin    InjectAs = "stdin"
	Option   InjectAs = "option"
)

// Mode records which definition form a tool was written in.
type Mode string

// Definition forms.
const (
	ModeCommand Mode = "command" // v1.1 command: + parameters:
	ModeExec    Mode = "exec"    // v1.7 exec: template
	ModeShell   Mode = "shell"   // v1.7 shell: template
)

// Tool is a tool after expansion: Command is the fixed argv prefix, and
// Parameters say where each value goes.
type Tool struct {
	Name        string   `json:"name" yaml:"name"`
	Description string   `json:"description,omitempty" yaml:"description,omitempty"`
	Command     []string `json:"command" yaml:"command,flow"`
	Parameters  []Param  `json:"parameters,omitempty" yaml:"parameters,omitempty"`
	// TimeoutMS overrides the agent-wide tool timeout when > 0.
	TimeoutMS int `json:"timeout_ms,omitempty" yaml:"timeout_ms,omitempty"`
	// Output overrides the agent-wide output limits (nil: none).
	Output *OutputLimits `json:"output,omitempty" yaml:"output,omitempty"`

	// Mode is the form the tool was written in; Template the exec:/shell:
	// text (empty for ModeCommand).
	Mode     Mode   `json:"-" yaml:"-"`
	Template string `json:"-" yaml:"-"`
	// Source is where the definition came from, as file:line:column.
	Source string `json:"-" yaml:"-"`
	// ArgvTemplate is, for ModeExec, the tokenised template: fixed words
	// and the slots where parameter values go (see Build). A ModeCommand
	// tool whose command: holds ${param} slots has one too.
	ArgvTemplate []Word `json:"-" yaml:"-"`
}

// Word is one argv element of an exec: template: literal parts and
// parameter slots concatenated (`--name=${n}` is one word with two parts).
type Word struct {
	Parts []Part
}

// Part is either a literal string or a parameter reference.
type Part struct {
	Literal string
	Param   string // non-empty for a ${param} slot
}

// Param is one parameter after merging inferred and explicit definitions.
type Param struct {
	Name        string   `json:"name" yaml:"name"`
	Type        string   `json:"type" yaml:"type"`
	Description string   `json:"description,omitempty" yaml:"description,omitempty"`
	Required    bool     `json:"required" yaml:"required"`
	InjectAs    InjectAs `json:"inject_as" yaml:"inject_as"`
	OptionName  string   `json:"option_name,omitempty" yaml:"option_name,omitempty"`
	Default     *string  `json:"default,omitempty" yaml:"default,omitempty"`
	Position    *int     `json:"position,omitempty" yaml:"position,omitempty"`
	Raw         bool     `json:"raw,omitempty" yaml:"raw,omitempty"`
}

// Call is what executing one tool call means: an argv (never interpreted by
// a shell unless argv[0] is the shell of a shell: tool) and optional stdin.
type Call struct {
	Argv  []string `json:"argv"`
	Stdin *string  `json:"stdin"`
}
