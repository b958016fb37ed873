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
// its value.
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
	return strongName(name) || hasPart(name, weakWords)
}

// Redacts reports whether the value of name=value is to be replaced
// wherever it appears in text Delta writes or sends: a URL that carries a
// password, or a value that looks like a secret under a name that says it
// is one (see the package doc for why this is narrower than IsSecret).
func Redacts(name, value string) bool {
	if urlWithPassword(value) {
		return true
	}
	if slices.Contains(notSecret, strings.ToUpper(name)) || !strongName(name) {
		return false
	}
	return LooksSecret(value)
}

// strongName reports whether name says its value is a secret: a key, a
// token, a password, a credential (the word and suffix rules, the known
// names), not merely a family prefix or a weak word.
func strongName(name string) bool {
	upper := strings.ToUpper(name)
	if slices.Contains(names, upper) {
		return true
	}
	if strings.HasPrefix(upper, "NPM_CONFIG_") && strings.Contains(upper, "AUTH") {
		return true
	}
	if hasPart(name, Words) {
		return true
	}
	for _, part := range Parts(name) {
		p := strings.ToUpper(part)
		for _, s := range suffixes {
			if strings.HasSuffix(p, s) {
				return true
			}
		}
	}
	return false
}

// hasPart reports whether a word part of name is one of words.
func hasPart(name string, words []string) bool {
	for _, part := range Parts(name) {
		if slices.Contains(words, strings.ToUpper(part)) {
			return true
		}
	}
	return false
}

// Parts splits a variable name into its word parts: at '_', '-', '.', '/',
// ':' and at camelCase humps ("authToken" → auth, Token; "APIKey" → API,
// Key).
func Parts(name string) []string {
	var parts []string
	fields := strings.FieldsFunc(name, func(r rune) bool {
		return r == '_' || r == '-' || r == '.' || r == '/' || r == ':'
	})
	for _, f := range fields {
		parts = append(parts, camel(f)...)
	}
	return parts
}

// camel splits one field at lower→upper humps and before the last capital
// of a run of capitals followed by a lower-case letter.
func camel(s string) []string {
	rs := []rune(s)
	var out []string
	start := 0
	for i := 1; i < len(rs); i++ {
		lowerToUpper := unicode.IsLower(rs[i-1]) && unicode.IsUpper(rs[i])
		acronymEnd := i+1 < len(rs) && unicode.IsUpper(rs[i-1]) && unicode.IsUpper(rs[i]) && unicode.IsLower(rs[i+1])
		if lowerToUpper || acronymEnd {
			out = append(out, string(rs[start:i]))
			start = i
		}
	}
	return append(out, string(rs[start:]))
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
