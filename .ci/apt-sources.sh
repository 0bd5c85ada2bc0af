#!/bin/bash
# Add bookworm-backports and the deb-src entries that the build needs, derived
# from the machine's existing Debian source entry (no archive host is written
# here: the URI is copied from the configuration the machine already has).
set -euo pipefail

out=/etc/apt/sources.list.d/rclink-build.sources
[ -f "$out" ] && exit 0

uri=""
signed=""
if [ -f /etc/apt/sources.list.d/debian.sources ]; then
	# First deb822 stanza that serves the main "bookworm" suite.
	uri=$(awk '/^URIs:/ {u=$2} /^Suites:/ && / bookworm( |$)/ {print u; exit}' \
		/etc/apt/sources.list.d/debian.sources)
	signed=$(awk '/^Signed-By:/ {print $2; exit}' \
		/etc/apt/sources.list.d/debian.sources)
fi
if [ -z "$uri" ] && [ -f /etc/apt/sources.list ]; then
	uri=$(awk '$1 == "deb" && $3 == "bookworm" {print $2; exit}' /etc/apt/sources.list)
fi
if [ -z "$uri" ]; then
	echo "apt-sources: no bookworm entry found in the apt configuration" >&2
	exit 1
fi
{
	echo "Types: deb deb-src"
	echo "URIs: $uri"
	echo "Suites: bookworm-backports"
	echo "Components: main"
	[ -n "$signed" ] && echo "Signed-By: $signed"
	echo
	echo "Types: deb-src"
	echo "URIs: $uri"
	echo "Suites: bookworm"
	echo "Components: main"
	[ -n "$signed" ] && echo "Signed-By: $signed"
} > "$out"
apt-get update -qq
