package secret

import (
	"strings"
	"unicode"
)

// MinLen is the shortest value that can look like a secret: shorter ones
// ("1", "true", "admin") would mangle ordinary text and give little away.
const MinLen = 6

// LooksSecret reports whether value could be a key, a token or a password
// rather than an ordinary word, path, number or address: at least MinLen
// characters, no white space, not a path, not a URL (a URL with a
// password is caught whole by urlWithPassword), and varied: letters mixed
// with digits or symbols, or long (24 characters or more, as random keys
// of one alphabet are). Case alone does not count: "George" is a word.
func LooksSecret(value string) bool {
	if len(value) < MinLen || strings.ContainsFunc(value, unicode.IsSpace) {
		return false
	}
	if strings.HasPrefix(value, "/") || strings.HasPrefix(value, "~") || strings.HasPrefix(value, "./") ||
		strings.HasPrefix(value, "../") || strings.Contains(value, "://") {
		return false
	}
	var letter, digit, other bool
	for _, r := range value {
		switch {
		case unicode.IsLetter(r):
			letter = true
		case unicode.IsDigit(r):
			digit = true
		default:
			other = true
		}
	}
	if !letter {
		return false // a number, a date, a version: never a key here
	}
	return digit || other || len(value) >= 24
}
