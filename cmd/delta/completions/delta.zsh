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
	if [[ $words[CURRENT-1] == (--run-id|--parent) ]] || [[ $sub == otel && $words[3] == export && CURRENT -ge 4 && $words[CURRENT] != -* ]]; then
		local -a ids
		ids=(${(f)"$(delta list-runs --format raw 2>/dev/null)"})
		compadd -a ids
		return
	fi
	if (( CURRENT == 3 )) && [[ $words[CURRENT] != -* ]]; then
		# A command's subcommands (config show, plugin install …), from its --help.
		local -a subs
		subs=(${(f)"$(delta help $sub 2>/dev/null | awk '/^Commands:/ {c = 1; next} c && /^  [a-z]/ {w = ""; for (i = 1; i <= NF; i++) if ($i ~ /^[a-z][a-z0-9:-]*$/) w = $i; else break; if (w != "") print w}')"})
		if (( ${#subs} )); then
			compadd -a subs
			return
		fi
	fi
	if [[ $words[CURRENT] == -* ]]; then
		# The flags come from the command's own --help, so they are never stale.
		# A subcommand's flags (otel export --follow) come from its own --help.
		local more=
		(( CURRENT >= 4 )) && [[ $words[3] != -* ]] && more=$(delta $sub $words[3] --help 2>/dev/null)
		flags=(${(f)"$({ delta help $sub 2>/dev/null; print -r -- $more; } | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u)"})
		compadd -a flags
		return
	fi
	_files
}
compdef _delta delta
