#!/bin/sh
# Adds a built first-party plugin to delta-plugins.sha256, the trust
# manifest of the first-party plugins (GoReleaser's post-build hook for
# the release archives; make build and make install write their own).
# delta-run runs a plugin it lists, found in its own directory with that
# checksum, without a `delta plugin install`.
#
# Usage: plugin-manifest.sh BINARY DIR
# DIR/delta-plugins.sha256 gains the binary's line (or has it replaced).
# GoReleaser builds the plugins of one target in parallel, each calling
# this, so the update holds a lock (mkdir is atomic) while it rewrites
# the file.
set -eu
bin=$1
dir=$2
name=$(basename "$bin")
if command -v sha256sum >/dev/null 2>&1; then
	sum=$(sha256sum "$bin" | cut -d' ' -f1)
else
	sum=$(shasum -a 256 "$bin" | cut -d' ' -f1)
fi
mkdir -p "$dir"
lock=$dir/.lock
tries=0
until mkdir "$lock" 2>/dev/null; do
	tries=$((tries + 1))
	if [ "$tries" -ge 600 ]; then
		echo "plugin-manifest: $lock has been held for a minute; remove it if no build is running" >&2
		exit 1
	fi
	sleep 0.1
done
trap 'rmdir "$lock"' EXIT
manifest=$dir/delta-plugins.sha256
{
	if [ -f "$manifest" ]; then grep -v "  $name\$" "$manifest" || true; fi
	echo "$sum  $name"
} | sort -k2 > "$manifest.tmp"
mv "$manifest.tmp" "$manifest"
