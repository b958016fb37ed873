// Package secret is the one rule for which environment variables are
// secrets. Command tools, plugins, hooks, generators and sessions all get
// an environment without them (unless agent.yaml's env.passthrough names
// one), and whatever Delta writes or sends has their values redacted.
//
// A variable is a secret when any word part of its name is one of Words
// (in any case; parts are split at '_', '-', '.' and camelCase humps), when
// a part ends in a run-together form such as APIKEY or AUTHTOKEN, when it
// is one of the well-known names (AWS_*, DATABASE_URL …), or when its value
// is a URL that carries a password. PWD and OLDPWD, the shell's working
// directories, are not secrets.
//
// Withholding and redacting are two rules. Withholding a variable from a
// tool costs little when it is wrong, so IsSecret is broad (every AWS_*
// variable, any SESSION name). Replacing a value wherever it appears in
// what the model reads costs a lot when it is wrong: with AWS_PROFILE=default
// every "default" of a file would vanish, and a model that rewrites the
// file writes the marker into the user's code. So Redacts is narrow: the
// name must say secret (a key, a token, a password, a credential, not just
// a family such as AWS_ or a SESSION) and the value must look like one
// (long and varied enough, not a path, a number, a word or a URL without a
// password).
package secret

import (
	"net/url"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Words are the name parts that make a variable a secret.
var Words = []string{
	"KEY", "SECRET", "TOKEN", "PASSWORD", "PASSWD", "PWD",
	"CREDENTIAL", "CREDENTIALS", "AUTH", "PAT", "COOKIE",
}

// weakWords make a variable one to withhold, but say too little to redact
// its value (XDG_SESSION_DESKTOP=ubuntu, SESSION_MANAGER=local/host:…).
var weakWords = []string{"SESSION"}

// suffixes are run-together forms: a part ending in one of them (APIKEY,
// AUTHTOKEN, DBPASSWORD) is a secret too. Short words such as PAT and PWD
// are left out: as suffixes they hit ordinary names.
var suffixes = []string{"KEY", "SECRET", "TOKEN", "PASSWORD", "PASSWD", "CREDENTIALS", "COOKIE"}

// prefixes are whole families of variables to withhold (AWS_PROFILE and
// AWS_REGION among them: withheld, never redacted; AWS's real secrets are
// caught by the word rule: AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN).
var prefixes = []string{"AWS_"}

// names are well-known secrets no word rule catches.
var names = []string{"DATABASE_URL"}

// notSecret are names the word rule would catch but that hold no secret.
var notSecret = []string{"PWD", "OLDPWD"}

// IsSecret reports whether the variable name=value is a secret to
// withhold from the commands Delta runs.
func IsSecret(name, value string) bool {
	return IsSecretName(name) || urlWithPassword(value)
}

// IsSecretName reports whether a variable called name is a secret whatever
// its value. It allocates at most one upper-case copy of name (none when
// name is upper case already): delta-sessions asks it of every variable of
// every exec's environment and state dump.
func IsSecretName(name string) bool {
	upper := strings.ToUpper(name)
	if slices.Contains(notSecret, upper) {
		return false
	}
	for _, p := range prefixes {
		if strings.HasPrefix(upper, p) {
			return true
		}
	}
	return strongName(name, upper) || hasPart(name, upper, weakWords)
}

// Redacts reports whether the value of name=value is to be replaced
// wherever it appears in text Delta writes or sends: a URL that carries a
// password, or a value that looks like a secret under a name that says it
// is one (see the package doc for why this is narrower than IsSecret).
func Redacts(name, value string) bool {
	if urlWithPassword(value) {
		return true
	}
	upper := strings.ToUpper(name)
	if slices.Contains(notSecret, upper) || !strongName(name, upper) {
		return false
	}
	return LooksSecret(value)
}

// strongName reports whether name (upper: its upper case) says its value
// is a secret: a key, a token, a password, a credential (the word and
// suffix rules, the known names), not merely a family prefix or a weak
// word.
func strongName(name, upper string) bool {
	if slices.Contains(names, upper) {
		return true
	}
	if strings.HasPrefix(upper, "NPM_CONFIG_") && strings.Contains(upper, "AUTH") {
		return true
	}
	if hasPart(name, upper, Words) {
		return true
	}
	return upperParts(name, upper, func(p string) bool {
		for _, s := range suffixes {
			if strings.HasSuffix(p, s) {
				return true
			}
		}
		return false
	})
}

// hasPart reports whether a word part of name is one of words.
func hasPart(name, upper string, words []string) bool {
	return upperParts(name, upper, func(p string) bool { return slices.Contains(words, p) })
}

// upperParts calls fn with each word part of name in upper case, until fn
// returns true, and reports whether it did. An ASCII name's parts are
// taken from upper (its upper case, the same bytes apart), not made.
func upperParts(name, upper string, fn func(string) bool) bool {
	ascii := len(upper) == len(name)
	for i := 0; ascii && i < len(name); i++ {
		ascii = name[i] < utf8.RuneSelf
	}
	return eachPart(name, func(start, end int) bool {
		if ascii {
			return fn(upper[start:end])
		}
		return fn(strings.ToUpper(name[start:end]))
	})
}

// Parts splits a variable name into its word parts: at '_', '-', '.', '/',
// ':' and at camelCase humps ("authToken" → auth, Token; "APIKey" → API,
// Key). The parts are substrings of name.
func Parts(name string) []string {
	var parts []string
	eachPart(name, func(start, end int) bool {
		parts = append(parts, name[start:end])
		return false
	})
	return parts
}

// eachPart calls fn with the byte bounds of each word part of name (see
// Parts), in order, until fn returns true, and reports whether it did.
func eachPart(name string, fn func(start, end int) bool) bool {
	isSep := func(c byte) bool { return c == '_' || c == '-' || c == '.' || c == '/' || c == ':' }
	for i := 0; i < len(name); {
		if isSep(name[i]) {
			i++
			continue
		}
		j := i
		for j < len(name) && !isSep(name[j]) {
			j++
		}
		if camel(name, i, j, fn) {
			return true
		}
		i = j
	}
	return false
}

// camel calls fn with the parts of the field name[from:to], split at
// lower→upper humps and before the last capital of a run of capitals
// followed by a lower-case letter.
func camel(name string, from, to int, fn func(start, end int) bool) bool {
	start := from
	prev, size := utf8.DecodeRuneInString(name[from:to])
	for i := from + size; i < to; {
		r, n := utf8.DecodeRuneInString(name[i:to])
		next, _ := utf8.DecodeRuneInString(name[i+n : to])
		lowerToUpper := unicode.IsLower(prev) && unicode.IsUpper(r)
		acronymEnd := i+n < to && unicode.IsUpper(prev) && unicode.IsUpper(r) && unicode.IsLower(next)
		if lowerToUpper || acronymEnd {
			if fn(start, i) {
				return true
			}
			start = i
		}
		prev = r
		i += n
	}
	return fn(start, to)
}

// urlWithPassword reports whether v is a URL whose user info has a
// password (postgres://user:pw@host/db).
func urlWithPassword(v string) bool {
	if !strings.Contains(v, "://") || !strings.Contains(v, "@") {
		return false
	}
	u, err := url.Parse(strings.TrimSpace(v))
	if err != nil || u.User == nil {
		return false
	}
	pw, ok := u.User.Password()
	return ok && pw != ""
}
