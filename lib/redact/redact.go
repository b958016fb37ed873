// Package redact replaces the values of secrets with [REDACTED:NAME] in
// text Delta writes or sends: tool observations and records, the journal,
// the requests to the model. The secrets are those lib/secret names in the
// engine's environment and in the provider's (.env files included); tools
// never get them, but one may find a secret elsewhere (a file, a config)
// and print it anyway.
package redact

import (
	"bytes"
	"cmp"
	"slices"
	"strings"

	"github.com/deltakit/delta/lib/secret"
)

// Redactor replaces secret values. The zero value and nil redact nothing.
type Redactor struct {
	r    *strings.Replacer
	olds [][]byte
}

// FromEnv builds the redactor of the secrets among the NAME=value entries
// of each environ: those lib/secret's Redacts names (a secret's name and a
// secret's look, so that ordinary words, paths and numbers are never
// replaced).
func FromEnv(environs ...[]string) *Redactor {
	values := map[string]string{} // value → name
	for _, environ := range environs {
		for _, kv := range environ {
			name, value, _ := strings.Cut(kv, "=")
			if secret.Redacts(name, value) {
				if _, seen := values[value]; !seen {
					values[value] = name
				}
			}
		}
	}
	if len(values) == 0 {
		return nil
	}
	type pair struct{ old, name string }
	pairs := make([]pair, 0, len(values))
	for v, n := range values {
		pairs = append(pairs, pair{v, n})
	}
	// Longest first: a secret that contains another is replaced whole.
	slices.SortFunc(pairs, func(a, b pair) int {
		if c := cmp.Compare(len(b.old), len(a.old)); c != 0 {
			return c
		}
		return cmp.Compare(a.old, b.old)
	})
	args := make([]string, 0, 2*len(pairs))
	olds := make([][]byte, 0, len(pairs))
	for _, p := range pairs {
		args = append(args, p.old, "[REDACTED:"+p.name+"]")
		olds = append(olds, []byte(p.old))
	}
	return &Redactor{r: strings.NewReplacer(args...), olds: olds}
}

// String returns s with every secret value replaced.
func (r *Redactor) String(s string) string {
	if r == nil || r.r == nil {
		return s
	}
	return r.r.Replace(s)
}

// Bytes returns b with every secret value replaced (b itself when none
// occurs).
func (r *Redactor) Bytes(b []byte) []byte {
	if !r.Contains(b) {
		return b
	}
	return []byte(r.r.Replace(string(b)))
}

// Contains reports whether b holds a secret value.
func (r *Redactor) Contains(b []byte) bool {
	if r == nil {
		return false
	}
	for _, o := range r.olds {
		if bytes.Contains(b, o) {
			return true
		}
	}
	return false
}
