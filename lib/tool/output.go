package tool

// Truncation modes of OutputLimits.Mode.
const (
	OutputHeadTail = "head_tail"
	OutputHead     = "head"
	OutputTail     = "tail"
)

// OutputLimits is agent.yaml's output: (agent-wide, or per tool): how much
// of a tool's output the model sees. Nil fields and an empty Mode keep the
// value they override; 0 means no limit.
type OutputLimits struct {
	MaxChars *int   `json:"max_chars,omitempty" yaml:"max_chars,omitempty"`
	MaxLines *int   `json:"max_lines,omitempty" yaml:"max_lines,omitempty"`
	Mode     string `json:"mode,omitempty" yaml:"mode,omitempty"`
}
