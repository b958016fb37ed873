# fish completion for delta: delta completion fish | source
function __delta_flags
	set -l sub (commandline -opc)[2]
	test "$sub" = tool; and set sub tool:expand
	# The flags come from the command's own --help, so they are never stale.
	set -l words (commandline -opc)
	# A subcommand's flags (otel export --follow) come from its own --help.
	begin
		delta help $sub 2>/dev/null
		test (count $words) -ge 3; and not string match -q -- "-*" $words[3]; and delta $sub $words[3] --help 2>/dev/null
	end | string match -ar -- '--[a-z][a-z0-9-]*' | sort -u
end
function __delta_subcommands
	set -l words (commandline -opc)
	test (count $words) -eq 2; or return
	# A command's subcommands (config show, plugin install …), from its --help.
	delta help $words[2] 2>/dev/null | awk '/^Commands:/ {c = 1; next} c && /^  [a-z]/ {w = ""; for (i = 1; i <= NF; i++) if ($i ~ /^[a-z][a-z0-9:-]*$/) w = $i; else break; if (w != "") print w}'
end
function __delta_wants_run_id
	set -l words (commandline -opc)
	contains -- $words[-1] --run-id --parent; and return
	# delta otel export RUN…: the runs too.
	test (count $words) -ge 3; and test "$words[2]" = otel; and test "$words[3]" = export; and not string match -q -- "-*" (commandline -ct)
end
complete -c delta -f -n __fish_use_subcommand -a '@COMMANDS@'
complete -c delta -f -n '__fish_seen_subcommand_from completion' -a 'bash zsh fish'
complete -c delta -n 'not __fish_use_subcommand; and string match -q -- "-*" (commandline -ct)' -f -a '(__delta_flags)'
complete -c delta -n 'not __fish_use_subcommand; and not __fish_seen_subcommand_from completion' -F
complete -c delta -f -n 'not __fish_use_subcommand; and test (count (__delta_subcommands)) -gt 0' -a '(__delta_subcommands)'
complete -c delta -f -n __delta_wants_run_id -a '(delta list-runs --format raw 2>/dev/null)'
