#!/usr/bin/env bash
# Refuses tracked files over 1 MiB: built binaries, captured output and
# generated data belong out of the repository (a submission has a size
# limit, and a clone should stay small). Run by `make check`.
set -euo pipefail
limit=$((1024 * 1024))
bad=0
while IFS= read -r -d '' f; do
	[ -f "$f" ] || continue
	size=$(stat -c %s "$f")
	if [ "$size" -gt "$limit" ]; then
		echo "tracked file over 1 MiB: $f ($size bytes); keep built or generated files out of git" >&2
		bad=1
	fi
done < <(git ls-files -z 2>/dev/null)
exit $bad
