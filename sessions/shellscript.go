package sessions

// The wrapper scripts that give shell sessions their memory. Each exec runs
// a fresh shell: the prologue restores the state files, the user's command
// runs through eval in the same shell (so cd, export, functions and aliases
// take effect), and an EXIT trap (which also runs after `exit N`) dumps the
// state into the spare .env.sh.new, ending it with the stateSaved line and
// the exec's nonce, and exits with the command's status. The working
// directory goes to .work_dir.txt.new before that line, only when it
// changed (the line then ends with " cd"). The Go side then exchanges the
// spares with env.sh and work_dir.txt (see exchange), only if the dump
// finished: it has the line with this exec's nonce. The spare is
// overwritten in place (<>, not >|) and cut after that line by the Go
// side: truncating a file to nothing and filling it again costs up to
// milliseconds on a busy ext4, shortening it microseconds.
//
// $1 is the session directory, $2 the nonce; both are cleared before the
// command runs.

// callerSecretNames is replaced, at each exec, by the names of the
// caller's secret variables (bash unsets them before it saves its state),
// and callerSecrets by case patterns _NAME_ for them (sh). See
// secretPattern.
const (
	callerSecretNames = "@CALLER_SECRET_NAMES@"
	callerSecrets     = "@CALLER_SECRETS@"
)

// secretNameCase is the same rule as sh case patterns over _NAME_ (upper
// and lower case spellings; dash cannot change case without forking).
const secretNameCase = `*[_a-z0-9][Kk][Ee][Yy]_*|*[Ss][Ee][Cc][Rr][Ee][Tt]_*|*[Tt][Oo][Kk][Ee][Nn]_*|*[Pp][Aa][Ss][Ss][Ww][Oo][Rr][Dd]_*|*[Pp][Aa][Ss][Ss][Ww][Dd]_*|*_[Pp][Ww][Dd]_*|*[Cc][Rr][Ee][Dd][Ee][Nn][Tt][Ii][Aa][Ll]*|*_[Aa][Uu][Tt][Hh]_*|*_[Pp][Aa][Tt]_*|*[Cc][Oo][Oo][Kk][Ii][Ee]_*|*_[Ss][Ee][Ss][Ss][Ii][Oo][Nn]_*|_AWS_*|_DATABASE_URL_|_[Nn][Pp][Mm]_[Cc][Oo][Nn][Ff][Ii][Gg]_*[Aa][Uu][Tt][Hh]*`

// stateSaved starts the last line of a complete state dump.
const stateSaved = "# delta-sessions: state saved "

// bashScript is the wrapper for bash sessions. It forks nothing (files are
// read with the read builtin), which keeps an exec within a few
// milliseconds of bare bash.
// Options are saved as $SHELLOPTS and $BASHOPTS (the ones that are on) and
// restored by turning off the others: two assignments instead of a line
// per option.
const bashScript = `__delta_dir=$1 __delta_nonce=$2; set --
shopt -s expand_aliases
if [ -f "$__delta_dir/env.sh" ]; then . "$__delta_dir/env.sh" 2>/dev/null; fi
IFS= read -r __delta_wd < "$__delta_dir/work_dir.txt"
builtin cd -- "$__delta_wd" 2>/dev/null || echo "delta-sessions: warning: cannot enter $__delta_wd; the command runs in $PWD" >&2
__delta_setopts() {
	local IFS=: __delta_o
	for __delta_o in $SHELLOPTS; do
		case :$__delta_so: in *:"$__delta_o":*) ;; *) set +o "$__delta_o" ;; esac
	done
	for __delta_o in $__delta_so; do set -o "$__delta_o"; done
	for __delta_o in $BASHOPTS; do
		case :$__delta_bo: in *:"$__delta_o":*) ;; *) shopt -u "$__delta_o" ;; esac
	done
	if [ -n "$__delta_bo" ]; then shopt -s $__delta_bo; fi
}
__delta_save() {
	__delta_so=$SHELLOPTS __delta_bo=$BASHOPTS __delta_cd=
	set +eu
	if [ "$PWD" != "$__delta_wd" ]; then printf '%s\n' "$PWD" >| "$__delta_dir/.work_dir.txt.new"; __delta_cd=" cd"; fi
	set -- "$1" "` + stateSaved + `$__delta_nonce$__delta_cd"
	{
		printf '__delta_so=%q __delta_bo=%q\n' "$__delta_so" "$__delta_bo"
		# The shell's own variables and the wrapper's are not state: this
		# shell is exiting, so they are unset and one declare -p prints
		# every variable left. The few that cannot be unset (the readonly
		# BASHOPTS, EUID …, and BASH_SOURCE …) are left out by the Go side
		# as it commits the dump (restorable).
		__delta_unsecret
		unset -v "${!__delta_@}" "${!BASH_@}" BASH BASHPID _ SHLVL PWD RANDOM SRANDOM SECONDS LINENO HISTCMD FUNCNAME GROUPS DIRSTACK PIPESTATUS EPOCHREALTIME EPOCHSECONDS COMP_WORDBREAKS HOSTNAME HOSTTYPE MACHTYPE OSTYPE
		declare -p
		# The wrapper's functions are not state either (half the dump,
		# written and read again at every exec); bash runs a copy of a
		# function, so this one may unset itself.
		unset -f __delta_save __delta_setopts __delta_unsecret __delta_restore_opts
		declare -f
		alias -p
		printf '%s\n' "$2"
	} 1<> "$__delta_dir/.env.sh.new"
	exit "$1"
}
# Secrets never reach env.sh: the caller's secret variables (named by the
# Go side, which knows the rule) are unset before the dump, and the Go side
# drops the lines of any other variable with a secret name as it commits
# the dump. The next exec gets the caller's secrets from its environment.
__delta_unsecret() { unset -v ` + callerSecretNames + ` 2>/dev/null; }
trap '{ __delta_save "$?"; } 2>/dev/null' EXIT
IFS= read -r -d '' __delta_cmd < "$__delta_dir/.command"
if [ -n "${__delta_so+set}" ]; then
	# Most sessions keep the options they started with: nothing to do.
	[ "$__delta_so:$__delta_bo" = "$SHELLOPTS:$BASHOPTS" ] || __delta_setopts 2>/dev/null
elif declare -F __delta_restore_opts >/dev/null; then
	__delta_restore_opts 2>/dev/null # state saved by an earlier version
fi
eval "$__delta_cmd"
`

// shScript is the wrapper for POSIX sh (dash) sessions. dash cannot print
// function definitions, so functions do not persist in sh sessions;
// variables, exports, aliases, options and the directory do. The saved
// state holds every variable, the wrapper's own too, so the arguments are
// read again after it is restored.
const shScript = `__delta_dir=$1
__delta_ppid=$PPID
if [ -f "$__delta_dir/env.sh" ]; then . "$__delta_dir/env.sh"; fi
PPID=$__delta_ppid
__delta_dir=$1 __delta_nonce=$2; set --
IFS= read -r __delta_wd < "$__delta_dir/work_dir.txt"
cd -- "$__delta_wd" 2>/dev/null || echo "delta-sessions: warning: cannot enter the saved directory; the command runs in $PWD" >&2
__delta_save() {
	__delta_rc=$1 __delta_cd=
	# Values may span lines, so set's output is kept whole; the few
	# specials in it (PPID, PWD) are put right by the prologue.
	{
		printf '%s\n' '__delta_restore_opts() {'; set +o; printf '%s\n' ':' '}'
		set +eu
		if [ "$PWD" != "$__delta_wd" ]; then printf '%s\n' "$PWD" >| "$__delta_dir/.work_dir.txt.new"; __delta_cd=" cd"; fi
		__delta_unsecret
		set
		export -p
		alias | sed 's/^/alias /'
		printf '%s\n' "` + stateSaved + `$__delta_nonce$__delta_cd"
	} 1<> "$__delta_dir/.env.sh.new"
	exit "$__delta_rc"
}
# dash has neither name listing nor regular expressions: the names come
# from set's output, and case patterns approximate the secret rule.
__delta_unsecret() {
	for __delta_v in $(set | sed -n 's/^\([A-Za-z_][A-Za-z0-9_]*\)=.*/\1/p'); do
		case _${__delta_v}_ in ` + callerSecrets + `) unset -v "$__delta_v" 2>/dev/null; continue ;; esac
		case _${__delta_v}_ in
		_PWD_|_OLDPWD_|___delta_*) ;;
		` + secretNameCase + `) unset -v "$__delta_v" 2>/dev/null ;;
		esac
	done
}
trap '{ __delta_save "$?"; } 2>/dev/null' EXIT
if command -v __delta_restore_opts >/dev/null; then __delta_restore_opts 2>/dev/null; fi
eval "$(cat "$__delta_dir/.command")"
`
