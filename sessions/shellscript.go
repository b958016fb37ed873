package sessions

// The wrapper scripts that give shell sessions their memory. Each exec runs
// a fresh shell: the prologue restores the state files, the user's command
// runs through eval in the same shell (so cd, export, functions and aliases
// take effect), and an EXIT trap (which also runs after `exit N`) dumps the
// state to new files and exits with the command's status. The Go side then
// renames the new files into place, only if the dump finished (.saved).
//
// $1 is the session directory; it is cleared before the command runs.

// bashScript is the wrapper for bash sessions. It forks nothing: files are
// read with the read builtin and ${!A*} lists variable names without a
// subshell, which keeps an exec within a few milliseconds of bare bash.
const bashScript = `__delta_dir=$1; set --
shopt -s expand_aliases
if [ -f "$__delta_dir/env.sh" ]; then . "$__delta_dir/env.sh"; fi
IFS= read -r __delta_wd < "$__delta_dir/work_dir.txt"
builtin cd -- "$__delta_wd" 2>/dev/null || echo "delta-sessions: warning: cannot enter $__delta_wd; the command runs in $PWD" >&2
__delta_save() {
	__delta_rc=$1
	{
		printf '%s\n' '__delta_restore_opts() {'
		set +o; shopt -p
		printf '%s\n' ':' '}'
	} >| "$__delta_dir/.env.sh.new"
	set +eu
	unset -f __delta_restore_opts
	{
		__delta_names=()
		for __delta_v in ${!A*} ${!B*} ${!C*} ${!D*} ${!E*} ${!F*} ${!G*} ${!H*} ${!I*} ${!J*} ${!K*} ${!L*} ${!M*} ${!N*} ${!O*} ${!P*} ${!Q*} ${!R*} ${!S*} ${!T*} ${!U*} ${!V*} ${!W*} ${!X*} ${!Y*} ${!Z*} ${!a*} ${!b*} ${!c*} ${!d*} ${!e*} ${!f*} ${!g*} ${!h*} ${!i*} ${!j*} ${!k*} ${!l*} ${!m*} ${!n*} ${!o*} ${!p*} ${!q*} ${!r*} ${!s*} ${!t*} ${!u*} ${!v*} ${!w*} ${!x*} ${!y*} ${!z*} ${!_*}; do
			case $__delta_v in
			__delta_*|_|BASH|BASHOPTS|BASHPID|BASH_*|SHLVL|PWD|RANDOM|SRANDOM|SECONDS|LINENO|HISTCMD|FUNCNAME|GROUPS|DIRSTACK|PIPESTATUS|EPOCHREALTIME|EPOCHSECONDS|EUID|UID|PPID|SHELLOPTS|COMP_WORDBREAKS|HOSTNAME|HOSTTYPE|MACHTYPE|OSTYPE) continue ;;
			esac
			__delta_names+=("$__delta_v")
		done
		# One declare for all names: one buffered write instead of dozens.
		declare -p -- "${__delta_names[@]}" 2>/dev/null
		declare -f
		alias -p
	} >> "$__delta_dir/.env.sh.new"
	printf '%s\n' "$PWD" >| "$__delta_dir/.work_dir.txt.new"
	printf '%s\n' "$__delta_rc" >| "$__delta_dir/.saved"
	exit "$__delta_rc"
}
trap '{ __delta_save "$?"; } 2>/dev/null' EXIT
IFS= read -r -d '' __delta_cmd < "$__delta_dir/.command"
if declare -F __delta_restore_opts >/dev/null; then __delta_restore_opts 2>/dev/null; fi
eval "$__delta_cmd"
`

// shScript is the wrapper for POSIX sh (dash) sessions. dash cannot print
// function definitions, so functions do not persist in sh sessions;
// variables, exports, aliases, options and the directory do.
const shScript = `__delta_dir=$1; set --
__delta_ppid=$PPID
if [ -f "$__delta_dir/env.sh" ]; then . "$__delta_dir/env.sh"; fi
PPID=$__delta_ppid
cd -- "$(cat "$__delta_dir/work_dir.txt")" 2>/dev/null || echo "delta-sessions: warning: cannot enter the saved directory; the command runs in $PWD" >&2
__delta_save() {
	__delta_rc=$1
	{ printf '%s\n' '__delta_restore_opts() {'; set +o; printf '%s\n' ':' '}'; } >| "$__delta_dir/.env.sh.new"
	set +eu
	# Values may span lines, so set's output is kept whole; the few
	# specials in it (PPID, PWD) are put right by the prologue.
	{
		set
		export -p
		alias | sed 's/^/alias /'
	} >> "$__delta_dir/.env.sh.new"
	printf '%s\n' "$PWD" >| "$__delta_dir/.work_dir.txt.new"
	printf '%s\n' "$__delta_rc" >| "$__delta_dir/.saved"
	exit "$__delta_rc"
}
trap '{ __delta_save "$?"; } 2>/dev/null' EXIT
if command -v __delta_restore_opts >/dev/null; then __delta_restore_opts 2>/dev/null; fi
eval "$(cat "$__delta_dir/.command")"
`
