#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Generate the code of the generic netlink family "rclink" from its spec,
# Documentation/netlink/specs/rclink.yaml, with the kernel's YNL generator
# (tools/net/ynl/ynl-gen-c.py of linux-source-6.12):
#
#   uapi/linux/rclink_nl.h            the uAPI: attributes, commands, group
#   drivers/rclink/rclink_nl_gen.[ch] the per-op policies and the ops table
#
#   tools/net/gen-nl.sh          regenerate the files in the tree
#   tools/net/gen-nl.sh --check  fail (and show the diff) when a file in the
#                                tree differs from what the spec generates
#
# The generator wants the spec inside a kernel tree (a MAINTAINERS file in a
# parent directory, the schema at <root>/Documentation/netlink/<protocol>.yaml),
# so it runs on a copy in a temporary directory.  With genetlink-legacy the
# struct genl_family is hand-written (rclink_nl.c), so the multicast group
# array the generator makes static is made global and declared in the header.
#
# Environment: RCLINK_CACHE (default ~/.cache/rclink), RCLINK_LINUX_SOURCE
# (default the newest /usr/src/linux-source-*.tar.xz); the generator and the
# schemas are extracted from it into $RCLINK_CACHE/linux-tools once.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cache=${RCLINK_CACHE:-$HOME/.cache/rclink}
tools=$cache/linux-tools
py=/usr/bin/python3
spec=Documentation/netlink/specs/rclink.yaml
check=0

case "${1:-}" in
--check) check=1 ;;
"") ;;
*)
	echo "usage: $0 [--check]" >&2
	exit 2
	;;
esac

gen=$tools/tools/net/ynl/ynl-gen-c.py
schema=$tools/Documentation/netlink/genetlink-legacy.yaml
if [ ! -f "$gen" ] || [ ! -f "$schema" ]; then
	src=${RCLINK_LINUX_SOURCE:-}
	if [ -z "$src" ]; then
		src=$(find /usr/src -maxdepth 1 -name 'linux-source-*.tar.xz' |
			sort -V | tail -n 1)
	fi
	if [ -z "$src" ]; then
		echo "gen-nl: no ynl-gen-c.py: install linux-source-6.12" >&2
		exit 1
	fi
	mkdir -p "$tools"
	tar -xJf "$src" -C "$tools" --strip-components=1 --wildcards \
		'*/tools/net/ynl/*' '*/Documentation/netlink/*.yaml'
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/root/Documentation/netlink/specs" "$tmp/out"
touch "$tmp/root/MAINTAINERS"
cp "$schema" "$tmp/root/Documentation/netlink/"
cp "$top/$spec" "$tmp/root/$spec"

"$py" "$gen" --mode uapi --header --spec "$tmp/root/$spec" \
	-o "$tmp/out/rclink_nl.h" >/dev/null
"$py" "$gen" --mode kernel --header --spec "$tmp/root/$spec" \
	-o "$tmp/out/rclink_nl_gen.h" >/dev/null
"$py" "$gen" --mode kernel --source --spec "$tmp/root/$spec" \
	-o "$tmp/out/rclink_nl_gen.c" >/dev/null

# The multicast groups, for the hand-written struct genl_family
last=$(sed -n 's/^\t\(RCLINK_NLGRP_[A-Z0-9_]*\),$/\1/p' \
	"$tmp/out/rclink_nl_gen.h" | tail -n 1)
if [ -z "$last" ]; then
	echo "gen-nl: no multicast group enum in rclink_nl_gen.h" >&2
	exit 1
fi
sed -i 's/^static const struct genl_multicast_group /const struct genl_multicast_group /' \
	"$tmp/out/rclink_nl_gen.c"
# The events group is for the administrator (who may see every QP's
# events): the flag's name differs between the kernel versions
# (rclink_compat.h); the generator has no spec property for it
sed -i 's/^\t\[RCLINK_NLGRP_EVENTS\] = { "events", },$/\t[RCLINK_NLGRP_EVENTS] = { "events", .flags = RCLINK_GENL_MCAST_ADMIN, },/' \
	"$tmp/out/rclink_nl_gen.c"
sed -i 's/^#include "rclink_nl_gen.h"$/&\n#include "rclink_compat.h"/' \
	"$tmp/out/rclink_nl_gen.c"
if ! grep -q 'RCLINK_GENL_MCAST_ADMIN' "$tmp/out/rclink_nl_gen.c"; then
	echo "gen-nl: no events group in rclink_nl_gen.c" >&2
	exit 1
fi
# Linux 6.1's struct nla_policy points to a non-const range (const from
# 6.2 on): the ranges of NLA_POLICY_FULL_RANGE are left writable
sed -i 's/^static const struct netlink_range_validation /static struct netlink_range_validation /' \
	"$tmp/out/rclink_nl_gen.c"
sed -i "s|^#endif /\* _LINUX_RCLINK_GEN_H \*/|/* tools/net/gen-nl.sh: for the hand-written family (genetlink-legacy) */\\
extern const struct genl_multicast_group rclink_nl_mcgrps[$last + 1];\\
\\
&|" "$tmp/out/rclink_nl_gen.h"

declare -A dest=(
	[rclink_nl.h]=uapi/linux/rclink_nl.h
	[rclink_nl_gen.h]=drivers/rclink/rclink_nl_gen.h
	[rclink_nl_gen.c]=drivers/rclink/rclink_nl_gen.c
)
rc=0
for f in rclink_nl.h rclink_nl_gen.h rclink_nl_gen.c; do
	d=${dest[$f]}
	if [ $check -eq 1 ]; then
		if ! diff -u "$top/$d" "$tmp/out/$f" >"$tmp/diff" 2>&1; then
			echo "gen-nl: $d is not what $spec generates:"
			cat "$tmp/diff"
			rc=1
		fi
	elif ! cmp -s "$tmp/out/$f" "$top/$d"; then
		cp "$tmp/out/$f" "$top/$d"
		echo "  GEN     $d"
	fi
done
exit $rc
