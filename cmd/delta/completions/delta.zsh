#compdef delta
# zsh completion for delta: source <(delta completion zsh)
_delta() {
	local -a cmds flags
	cmds=(@COMMANDS@)
	if (( CURRENT == 2 )); then
		compadd -a cmds
		return
	fi
	local sub=$words[2]
	[[ $sub == tool ]] && sub=tool:expand
	if [[ $sub == completion ]]; then
		compadd bash zsh fish
		return
	fi
	if [[ $words[CURRENT] == -* ]]; then
		# The flags come from the command's own --help, so they are never stale.
		flags=(${(f)"$(delta help $sub 2>/dev/null | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u)"})
		compadd -a flags
		return
	fi
	_files
}
compdef _delta delta
