package tool

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func lit(s string) Part    { return Part{Literal: s} }
func param(s string) Part  { return Part{Param: s} }
func word(ps ...Part) Word { return Word{Parts: ps} }

func TestTokenizeExec(t *testing.T) {
	tests := []struct {
		name string
		tmpl string
		want []Word
	}{
		{"plain", "ls -la ${dir}", []Word{word(lit("ls")), word(lit("-la")), word(param("dir"))}},
		{"double quoted static", `grep "fixed pattern" ${file}`, []Word{word(lit("grep")), word(lit("fixed pattern")), word(param("file"))}},
		{"single quoted static", `echo 'a  b' c`, []Word{word(lit("echo")), word(lit("a  b")), word(lit("c"))}},
		{"glued placeholder", "cmd --name=${n}", []Word{word(lit("cmd")), word(lit("--name="), param("n"))}},
		{"two placeholders in a word", "cp ${a}:${b} x", []Word{word(lit("cp")), word(param("a"), lit(":"), param("b")), word(lit("x"))}},
		{"placeholder in double quotes", `echo "hello ${who}!"`, []Word{word(lit("echo")), word(lit("hello "), param("who"), lit("!"))}},
		{"escaped quote", `echo "say \"hi\"" it\'s`, []Word{word(lit("echo")), word(lit(`say "hi"`)), word(lit("it's"))}},
		{"backslash kept in double quotes", `echo "a\b"`, []Word{word(lit("echo")), word(lit(`a\b`))}},
		{"escaped space", `echo a\ b`, []Word{word(lit("echo")), word(lit("a b"))}},
		{"glob is literal", `ls *.go`, []Word{word(lit("ls")), word(lit("*.go"))}},
		{"hash inside word", `echo a#b`, []Word{word(lit("echo")), word(lit("a#b"))}},
		{"empty quoted word", `printf "" x`, []Word{word(lit("printf")), word(), word(lit("x"))}},
		{"repeated placeholder", `echo ${x} ${x}`, []Word{word(lit("echo")), word(param("x")), word(param("x"))}},
		{"unicode", `echo héllo ${ü_x}`, []Word{word(lit("echo")), word(lit("héllo")), word(lit("${ü_x}"))}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, _, err := tokenizeExec(tc.tmpl)
			if tc.name == "unicode" {
				// ${ü_x} is not a placeholder name, so sh sees a bad
				// parameter expansion: rejected.
				if err == nil {
					t.Fatalf("tokenizeExec(%q) = %v, want an error", tc.tmpl, got)
				}
				return
			}
			if err != nil {
				t.Fatalf("tokenizeExec(%q): %v", tc.tmpl, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("tokenizeExec(%q) mismatch (-want +got):\n%s", tc.tmpl, diff)
			}
		})
	}
}

func TestTokenizeExecRejects(t *testing.T) {
	tests := []struct {
		tmpl string
		kind error
		msg  string
	}{
		{"cat ${file} | wc -l", ErrMetachar, "Shell metacharacter '|' not allowed in exec: mode. Use shell: mode instead."},
		{"cat ${file} > out", ErrMetachar, "Shell metacharacter '>' not allowed in exec: mode. Use shell: mode instead."},
		{"cat < ${file}", ErrMetachar, "Shell metacharacter '<' not allowed in exec: mode. Use shell: mode instead."},
		{"a ; b", ErrMetachar, "Shell metacharacter ';' not allowed in exec: mode. Use shell: mode instead."},
		{"a & b", ErrMetachar, "Shell metacharacter '&' not allowed in exec: mode. Use shell: mode instead."},
		{"sleep 1 &", ErrMetachar, "Shell metacharacter '&' not allowed in exec: mode. Use shell: mode instead."},
		{"a && b", ErrMetachar, "Shell metacharacter '&&' not allowed in exec: mode. Use shell: mode instead."},
		{"a || b", ErrMetachar, "Shell metacharacter '||' not allowed in exec: mode. Use shell: mode instead."},
		{"echo $(id)", ErrMetachar, "Shell metacharacter '$(' not allowed in exec: mode. Use shell: mode instead."},
		{"echo `id`", ErrMetachar, "Shell metacharacter '`' not allowed in exec: mode. Use shell: mode instead."},
		{`echo "$(id)"`, ErrMetachar, "Shell metacharacter '$(' not allowed in exec: mode. Use shell: mode instead."},
		{"(ls)", ErrMetachar, "Shell metacharacter '(' not allowed in exec: mode. Use shell: mode instead."},
		{"a |", ErrMetachar, "Shell metacharacter '|' not allowed in exec: mode. Use shell: mode instead."},
		{"echo $HOME", ErrMetachar, ""},
		{"echo $((1+2))", ErrMetachar, "Shell metacharacter '$((' not allowed in exec: mode. Use shell: mode instead."},
		{"FOO=1 env", ErrMetachar, ""},
		{"echo a # note", ErrMetachar, ""},
		{"a\nb", ErrMetachar, "Shell metacharacter 'newline' not allowed in exec: mode. Use shell: mode instead."},
		{"cat ${f:raw}", ErrRawInExec, ""},
		{`echo 'unterminated`, ErrTemplate, ""},
		{"   ", ErrTemplate, ""},
		{`echo \${x}`, ErrTemplate, ""},
	}
	for _, tc := range tests {
		t.Run(tc.tmpl, func(t *testing.T) {
			_, _, err := tokenizeExec(tc.tmpl)
			if !errors.Is(err, tc.kind) {
				t.Fatalf("tokenizeExec(%q) error = %v, want %v", tc.tmpl, err, tc.kind)
			}
			if tc.msg != "" && err.Error() != tc.msg {
				t.Errorf("tokenizeExec(%q) error = %q, want %q", tc.tmpl, err, tc.msg)
			}
		})
	}
}
