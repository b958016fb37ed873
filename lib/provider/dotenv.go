package provider

import (
	"errors"
	"fmt"
	"strings"
)

// ErrDotenv is matched by every .env syntax error.
var ErrDotenv = errors.New("invalid .env")

// ParseDotenv parses .env text: KEY=VALUE lines, an optional "export "
// prefix, blank lines and # comments. Values may be 'single quoted'
// (literal), "double quoted" (with \n \t \" \\ escapes, may span lines) or
// bare (trimmed, a " #" starts a comment). Variables are not expanded.
func ParseDotenv(text string) (map[string]string, error) {
	out := map[string]string{}
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		lineNo := i + 1
		line := strings.TrimSpace(lines[i])
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if rest, ok := strings.CutPrefix(line, "export"); ok && rest != "" && (rest[0] == ' ' || rest[0] == '\t') {
			line = strings.TrimSpace(rest)
		}
		key, value, ok := strings.Cut(line, "=")
		if !ok {
			return nil, fmt.Errorf("%w: line %d: want KEY=VALUE", ErrDotenv, lineNo)
		}
		key = strings.TrimSpace(key)
		if !validEnvKey(key) {
			return nil, fmt.Errorf("%w: line %d: bad variable name %q", ErrDotenv, lineNo, key)
		}
		value = strings.TrimLeft(value, " \t")
		v, consumed, err := dotenvValue(value, lines[i+1:])
		if err != nil {
			return nil, fmt.Errorf("%w: line %d: %v", ErrDotenv, lineNo, err)
		}
		i += consumed
		out[key] = v
	}
	return out, nil
}

func validEnvKey(k string) bool {
	if k == "" || (k[0] >= '0' && k[0] <= '9') {
		return false
	}
	for _, c := range k {
		if !(c == '_' || c == '.' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// dotenvValue decodes the value starting at v; more holds the following
// lines for multi-line double-quoted values. consumed is how many of them
// were used.
func dotenvValue(v string, more []string) (string, int, error) {
	switch {
	case strings.HasPrefix(v, "'"):
		end := strings.IndexByte(v[1:], '\'')
		if end < 0 {
			return "", 0, fmt.Errorf("unterminated single quote")
		}
		if err := trailing(v[end+2:]); err != nil {
			return "", 0, err
		}
		return v[1 : end+1], 0, nil
	case strings.HasPrefix(v, `"`):
		return doubleQuoted(v[1:], more)
	default:
		if i := strings.Index(v, " #"); i >= 0 {
			v = v[:i]
		}
		if i := strings.Index(v, "\t#"); i >= 0 {
			v = v[:i]
		}
		return strings.TrimSpace(v), 0, nil
	}
}

// doubleQuoted reads up to the closing quote, joining lines with \n.
func doubleQuoted(s string, more []string) (string, int, error) {
	var b strings.Builder
	consumed := 0
	for {
		for i := 0; i < len(s); i++ {
			c := s[i]
			switch {
			case c == '\\' && i+1 < len(s):
				i++
				switch s[i] {
				case 'n':
					b.WriteByte('\n')
				case 't':
					b.WriteByte('\t')
				case 'r':
					b.WriteByte('\r')
				case '"', '\\', '$':
					b.WriteByte(s[i])
				default:
					b.WriteByte('\\')
					b.WriteByte(s[i])
				}
			case c == '"':
				return b.String(), consumed, trailing(s[i+1:])
			default:
				b.WriteByte(c)
			}
		}
		if consumed == len(more) {
			return "", 0, fmt.Errorf("unterminated double quote")
		}
		b.WriteByte('\n')
		s = more[consumed]
		consumed++
	}
}

// trailing accepts only spaces or a comment after a quoted value.
func trailing(rest string) error {
	rest = strings.TrimSpace(rest)
	if rest == "" || strings.HasPrefix(rest, "#") {
		return nil
	}
	return errors.New("unexpected text after the quoted value")
}
