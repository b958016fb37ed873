# bash completion for delta: eval "$(delta completion bash)"
_delta() {
	local cur=${COMP_WORDS[COMP_CWORD]} sub=${COMP_WORDS[1]}
	if [ "$COMP_CWORD" -eq 1 ]; then
		COMPREPLY=($(compgen -W "@COMMANDS@" -- "$cur"))
		return
	fi
	[ "$sub" = tool ] && sub=tool:expand
	if [ "$sub" = completion ]; then
		COMPREPLY=($(compgen -W "bash zsh fish" -- "$cur"))
		return
	fi
	case "$cur" in
	-*)
		# The flags come from the command's own --help, so they are never stale.
		COMPREPLY=($(compgen -W "$(delta help "$sub" 2>/dev/null | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u)" -- "$cur"))
		;;
	*)
		COMPREPLY=($(compgen -f -- "$cur"))
		;;
	esac
}
complete -o filenames -F _delta delta
