package cli

import (
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/alecthomas/kong"
)

// OnlyChosenCommand is an option of Run for a binary whose start-up counts
// (delta-run is started for every run): kong builds its model of the whole
// grammar, every command's every flag with its help text, before it parses
// a single argument, which cost delta-run more than all the rest of its
// start. With this option Run answers a lone --version (ManFlag's) before
// any model, and parses anything else first with a model of only the
// command the arguments name, its help texts left out since nothing of
// that parse shows them. Whenever the arguments might mean anything else
// under the whole grammar (help or the man page asked for, a word that
// names another command, any parse error) Run parses again with the whole
// model, as without the option, so every output stays exactly what the
// whole grammar gives.
//
// The grammar's root must have no positional arguments and its hooks must
// not mind running twice (nor, for a lone --version, not running); a
// grammar that does not qualify is always parsed whole.
var OnlyChosenCommand kong.Option = chosenCommand{}

type chosenCommand struct{}

// Apply implements kong.Option; the option is Run's, kong has nothing to do.
func (chosenCommand) Apply(*kong.Kong) error { return nil }

// isChosenCommand tells OnlyChosenCommand among Run's options by its type
// (options of other types, such as kong.Vars, a map, cannot be compared).
func isChosenCommand(o kong.Option) bool { _, ok := o.(chosenCommand); return ok }

// command is one command of a grammar's root: its struct field and the
// words that select it.
type command struct {
	field string
	words []string
	// isDefault: the command runs when no command is named.
	isDefault bool
}

// rootCommands lists the commands of grammar's root, or ok false when the
// root is not one OnlyChosenCommand can narrow down safely: it has
// positional arguments, commands inside embedded structs, or tags in
// kong's other form (kong:"cmd,…"), which this reading would miss.
func rootCommands(grammar any) (cmds []command, ok bool) {
	t := reflect.TypeOf(grammar)
	// kong.IgnoreFields matches "Type.Field": the root needs a name.
	if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct || t.Elem().Name() == "" {
		return nil, false
	}
	for i := range t.Elem().NumField() {
		f := t.Elem().Field(i)
		if _, other := f.Tag.Lookup("kong"); other {
			return nil, false
		}
		if _, isCmd := f.Tag.Lookup("cmd"); !isCmd {
			if !plainFlags(f) {
				return nil, false
			}
			continue
		}
		name := f.Tag.Get("name")
		if name == "" {
			// kong's default name, the dashed field name; only a
			// one-word name is sure to be the lowered field name.
			if strings.ToLower(f.Name[1:]) != f.Name[1:] {
				return nil, false
			}
			name = strings.ToLower(f.Name)
		}
		words := []string{name}
		if aliases := f.Tag.Get("aliases"); aliases != "" {
			words = append(words, strings.Split(aliases, ",")...)
		}
		_, isDefault := f.Tag.Lookup("default")
		cmds = append(cmds, command{field: f.Name, words: words, isDefault: isDefault})
	}
	return cmds, len(cmds) > 0
}

// plainFlags reports whether a field that is not a command holds only
// flags: no positional argument, no command inside an embedded struct.
func plainFlags(f reflect.StructField) bool {
	_, isArg := f.Tag.Lookup("arg")
	if _, other := f.Tag.Lookup("kong"); isArg || other {
		return false
	}
	if _, isEmbed := f.Tag.Lookup("embed"); !f.Anonymous && !isEmbed {
		return true
	}
	t := f.Type
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return true
	}
	for i := range t.NumField() {
		inner := t.Field(i)
		if _, isCmd := inner.Tag.Lookup("cmd"); isCmd || !plainFlags(inner) {
			return false
		}
	}
	return true
}

// mightShowHelp reports whether args might ask for help or the man page,
// which must describe the whole grammar: --help, --man, or a cluster of
// short flags with an h in it. Being wrong the safe way (a message that
// happens to contain -h) only costs the whole model's build.
func mightShowHelp(args []string) bool {
	for _, a := range args {
		switch {
		case strings.HasPrefix(a, "--help"), strings.HasPrefix(a, "--man"):
			return true
		case len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsRune(a, 'h'):
			return true
		}
	}
	return false
}

// chosenField is the command to keep in the narrowed model: the one
// args[0] names, else the default command, provided that no argument is a
// word of another command (under the whole grammar that word could select
// it). ok false: parse with the whole model.
func chosenField(cmds []command, args []string) (field string, ok bool) {
	for _, c := range cmds {
		if len(args) > 0 && slices.Contains(c.words, args[0]) {
			return c.field, true
		}
	}
	i := slices.IndexFunc(cmds, func(c command) bool { return c.isDefault })
	if i < 0 {
		return "", false
	}
	for _, c := range cmds {
		for _, a := range args {
			if c.field != cmds[i].field && slices.Contains(c.words, a) {
				return "", false
			}
		}
	}
	return cmds[i].field, true
}

// narrowed is the kong options that build grammar's model with only the
// commands in keep, and without help texts.
func narrowed(grammar any, cmds []command, keep []string) []kong.Option {
	var drop []string
	for _, c := range cmds {
		if !slices.Contains(keep, c.field) {
			drop = append(drop, regexp.QuoteMeta(c.field))
		}
	}
	opts := []kong.Option{kong.PostBuild(dropHelp)}
	if len(drop) > 0 {
		root := regexp.QuoteMeta(reflect.TypeOf(grammar).Elem().Name())
		opts = append(opts, kong.IgnoreFields(`^`+root+`\.(`+strings.Join(drop, "|")+`)$`))
	}
	return opts
}

// dropHelp empties the model's help texts before kong interpolates
// variables into them, its dearest step: the narrowed parse never shows
// them (help goes to the whole model).
func dropHelp(k *kong.Kong) error {
	return kong.Visit(k.Model.Node, func(n kong.Visitable, next kong.Next) error {
		switch n := n.(type) {
		case *kong.Node:
			n.Help = ""
		case *kong.Value:
			n.Help = ""
		}
		return next(nil)
	})
}

// parseChosen parses args with the model narrowed to the chosen command
// (see OnlyChosenCommand) and returns the context to run, or nil when the
// whole model must decide; grammar is then zero again, as Run got it.
func parseChosen(grammar any, args []string, opts []kong.Option) *kong.Context {
	cmds, ok := rootCommands(grammar)
	if !ok || mightShowHelp(args) {
		return nil
	}
	field, ok := chosenField(cmds, args)
	if !ok {
		return nil
	}
	return tryParse(grammar, args, append(opts, narrowed(grammar, cmds, []string{field})...))
}

// tryParse parses args into grammar with opts; on any failure, or when the
// parse selects no command, it zeroes grammar and returns nil.
func tryParse(grammar any, args []string, opts []kong.Option) *kong.Context {
	parser, err := kong.New(grammar, opts...)
	if err == nil {
		var ctx *kong.Context
		if ctx, err = parser.Parse(args); err == nil && ctx.Selected() != nil {
			return ctx
		}
	}
	v := reflect.ValueOf(grammar).Elem()
	v.Set(reflect.Zero(v.Type()))
	return nil
}

// versionOnly reports whether args are a lone --version that ManFlag, in
// grammar's root, answers with the version Run put into kong's variables
// (no option of the caller's replaces it): kong's VersionFlag prints it
// and exits 0 before anything else of the parse happens.
func versionOnly(grammar any, args []string, options []kong.Option) bool {
	if len(args) != 1 || args[0] != "--version" {
		return false
	}
	for _, o := range options {
		if vars, ok := o.(kong.Vars); ok && vars["version"] != "" {
			return false
		}
	}
	t := reflect.TypeOf(grammar)
	if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return false
	}
	f, ok := t.Elem().FieldByName("ManFlag")
	return ok && f.Anonymous && f.Type == reflect.TypeFor[ManFlag]()
}
