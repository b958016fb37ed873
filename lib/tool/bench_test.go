package tool

import (
	"encoding/json"
	"testing"
)

func BenchmarkExpandExec(b *testing.B) {
	d := Definition{Name: "search", Exec: `grep -n "fixed pattern" --label=${label} ${file}`, Parameters: []ParamDef{{Name: "file", Default: ptr("x")}}}
	for b.Loop() {
		if _, err := Expand(d); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkExpandShell(b *testing.B) {
	d := Definition{Name: "count", Shell: `grep ${pattern} "${file}" | sort | uniq -c | head -n ${n:raw}`}
	for b.Loop() {
		if _, err := Expand(d); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBuild(b *testing.B) {
	tl := mustExpand(b, Definition{Name: "count", Shell: `grep ${pattern} ${file} | wc -l`, Stdin: "body"})
	args := json.RawMessage(`{"pattern":"needle","file":"haystack.txt","body":"some text\n"}`)
	for b.Loop() {
		if _, err := Build(tl, args); err != nil {
			b.Fatal(err)
		}
	}
}
