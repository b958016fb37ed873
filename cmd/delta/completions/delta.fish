# fish completion for delta: delta completion fish | source
function __delta_flags
	set -l sub (commandline -opc)[2]
	test "$sub" = tool; and set sub tool:expand
	# The flags come from the command's own --help, so they are never stale.
	delta help $sub 2>/dev/null | string match -ar -- '--[a-z][a-z0-9-]*' | sort -u
end
function __delta_subcommands
	set -l words (commandline -opc)
	test (count $words) -eq 2; or return
	# A command's subcommands (config show, plugin install …), from its --help.
	delta help $words[2] 2>/dev/null | awk '/^Commands:/ {c = 1; next} c && /^  [a-z]/ {w = ""; for (i = 1; i <= NF; i++) if ($i ~ /^[a-z][a-z0-9:-]*$/) w = $i; else break; if (w != "") print w}'
end
function __delta_after_run_id
	set -l words (commandline -opc)
	contains -- $words[-1] --run-id --parent
end
complete -c delta -f -n __fish_use_subcommand -a '@COMMANDS@'
complete -c delta -f -n '__fish_seen_subcommand_from completion' -a 'bash zsh fish'
complete -c delta -n 'not __fish_use_subcommand; and string match -q -- "-*" (commandline -ct)' -f -a '(__delta_flags)'
complete -c delta -n 'not __fish_use_subcommand; and not __fish_seen_subcommand_from completion' -F
complete -c delta -f -n 'not __fish_use_subcommand; and test (count (__delta_subcommands)) -gt 0' -a '(__delta_subcommands)'
complete -c delta -f -n __delta_after_run_id -a '(delta list-runs --format raw 2>/dev/null)'
