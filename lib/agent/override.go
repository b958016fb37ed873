package agent

import (
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// Setting is one per-run override of an agent.yaml key, given as
// KEY=VALUE (delta run -c max_iterations=50 -c llm.temperature=0.2): KEY
// is a dotted path into agent.yaml, VALUE a YAML value. Settings are
// applied to agent.yaml's document before it is decoded, so an overridden
// value is checked exactly as one written in the file.
type Setting struct {
	// Text is the setting as given, KEY=VALUE; runs record it.
	Text  string
	path  []string
	value *yaml.Node
}

// nestedKeys are the known keys of agent.yaml's blocks whose keys a
// setting's path is checked against; other blocks' inner keys are checked
// when the value is decoded.
var nestedKeys = map[string][]string{"llm": append(append([]string(nil), llmKeys...), passThroughKeys...), "env": envKeys, "loop_detection": loopKeys}

// ParseSetting parses KEY=VALUE. An unknown key is an error (matching
// ErrUnknownKey) that names the valid ones.
func ParseSetting(text string) (Setting, error) {
	key, raw, ok := strings.Cut(text, "=")
	key = strings.TrimSpace(key)
	if !ok || key == "" {
		return Setting{}, fmt.Errorf("%w: -c %q: give KEY=VALUE, such as -c max_iterations=50 or -c llm.temperature=0.2", ErrInvalid, text)
	}
	path := strings.Split(key, ".")
	if err := checkPath(path); err != nil {
		return Setting{}, fmt.Errorf("-c %s: %w", text, err)
	}
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(raw), &n); err != nil {
		return Setting{}, fmt.Errorf("%w: -c %s: the value is not valid YAML (quote it): %v", ErrInvalid, text, err)
	}
	value := &n
	if value.Kind == yaml.DocumentNode && len(value.Content) > 0 {
		value = value.Content[0]
	}
	if value.Kind == 0 { // an empty value: the empty string
		value = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: ""}
	}
	return Setting{Text: text, path: path, value: value}, nil
}

// checkPath checks a setting's key against agent.yaml's keys (and, for
// the blocks in nestedKeys, the block's keys).
func checkPath(path []string) error {
	for _, p := range path {
		if p == "" {
			return fmt.Errorf("%w: an empty part in the dotted key", ErrInvalid)
		}
	}
	if err := knownKey(path[0], "agent.yaml", agentKeys); err != nil {
		return err
	}
	if known, ok := nestedKeys[path[0]]; ok && len(path) > 1 {
		return knownKey(path[1], path[0], known)
	}
	return nil
}

// knownKey is nil when key is one of known, else an ErrUnknownKey error
// with a did-you-mean and the list of valid keys.
func knownKey(key, what string, known []string) error {
	if contains(known, key) {
		return nil
	}
	msg := fmt.Sprintf("unknown key %q in %s", key, what)
	if s := suggest(key, known); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	return fmt.Errorf("%w: %s; valid keys: %s", ErrUnknownKey, msg, strings.Join(known, ", "))
}

// apply sets the setting's value in root, agent.yaml's top mapping,
// creating the mappings on its path that are missing.
func (s Setting) apply(root *yaml.Node) {
	n := root
	for i, key := range s.path {
		last := i == len(s.path)-1
		v := mappingValue(n, key)
		if v == nil {
			v = &yaml.Node{Kind: yaml.MappingNode}
			n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, v)
		}
		if last {
			*v = *s.value
			return
		}
		if v.Kind != yaml.MappingNode {
			*v = yaml.Node{Kind: yaml.MappingNode}
		}
		n = v
	}
}

// mappingValue is the value of key in mapping n, nil when absent.
func mappingValue(n *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// LoadWith is Load with per-run settings applied to agent.yaml (in order:
// a later setting of a key wins).
func LoadWith(path string, settings []Setting) (*Agent, error) {
	l := &loader{settings: settings}
	return l.run(path)
}
