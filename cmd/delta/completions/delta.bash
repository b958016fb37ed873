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
	local prev=${COMP_WORDS[COMP_CWORD-1]}
	case "$prev" in
	--run-id|--parent)
		# The runs of the current directory (and of the agent directory's
		# workspaces), newest first.
		COMPREPLY=($(compgen -W "$(delta list-runs --format raw 2>/dev/null)" -- "$cur"))
		return
		;;
	esac
	if [ "$sub" = otel ] && [ "${COMP_WORDS[2]}" = export ] && [ "$COMP_CWORD" -ge 3 ] && [ "${cur#-}" = "$cur" ]; then
		# delta otel export RUN…: the runs, as after --run-id.
		COMPREPLY=($(compgen -W "$(delta list-runs --format raw 2>/dev/null)" -- "$cur"))
		return
	fi
	if [ "$COMP_CWORD" -eq 2 ] && [ "${cur#-}" = "$cur" ]; then
		# A command's subcommands (config show, plugin install …), from its --help.
		local subs
		subs=$(delta help "$sub" 2>/dev/null | awk '/^Commands:/ {c = 1; next} c && /^  [a-z]/ {w = ""; for (i = 1; i <= NF; i++) if ($i ~ /^[a-z][a-z0-9:-]*$/) w = $i; else break; if (w != "") print w}')
		if [ -n "$subs" ]; then
			COMPREPLY=($(compgen -W "$subs" -- "$cur"))
			return
		fi
	fi
	case "$cur" in
	-*)
		# The flags come from the command's own --help, so they are never stale.
		# A subcommand's flags (otel export --follow) come from its own --help.
		local more=
		[ "$COMP_CWORD" -ge 3 ] && [ "${COMP_WORDS[2]#-}" = "${COMP_WORDS[2]}" ] && more=$(delta "$sub" "${COMP_WORDS[2]}" --help 2>/dev/null)
		COMPREPLY=($(compgen -W "$({ delta help "$sub" 2>/dev/null; echo "$more"; } | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u)" -- "$cur"))
		;;
	*)
		COMPREPLY=($(compgen -f -- "$cur"))
		;;
	esac
}
complete -o filenames -F _delta delta
