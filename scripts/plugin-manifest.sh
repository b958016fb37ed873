#!/bin/sh
# Writes delta-plugins.sha256, the trust manifest of the first-party
# plugins, beside a built plugin binary (GoReleaser's post-build hook for
# the release archives; make build and make install write their own).
# delta-run runs a plugin it lists, found in its own directory with that
# checksum, without a `delta plugin install`.
set -eu
bin=$1
cd "$(dirname "$bin")"
name=$(basename "$bin")
if command -v sha256sum >/dev/null 2>&1; then
	sha256sum "$name" > delta-plugins.sha256
else
	shasum -a 256 "$name" > delta-plugins.sha256
fi
