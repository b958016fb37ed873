# fish completion for delta: delta completion fish | source
function __delta_flags
	set -l sub (commandline -opc)[2]
	test "$sub" = tool; and set sub tool:expand
	# The flags come from the command's own --help, so they are never stale.
	delta help $sub 2>/dev/null | string match -ar -- '--[a-z][a-z0-9-]*' | sort -u
end
complete -c delta -f -n __fish_use_subcommand -a '@COMMANDS@'
complete -c delta -f -n '__fish_seen_subcommand_from completion' -a 'bash zsh fish'
complete -c delta -n 'not __fish_use_subcommand; and string match -q -- "-*" (commandline -ct)' -f -a '(__delta_flags)'
complete -c delta -n 'not __fish_use_subcommand; and not __fish_seen_subcommand_from completion' -F
