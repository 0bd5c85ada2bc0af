#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernel's own drivers/net selftests on the rclink netdev: ping.py,
# stats.py and queues.py of the 6.12 source (tools/testing/selftests/
# drivers/net), with NETIF the netdev of board A in its namespace and the
# remote endpoint board B's namespace (REMOTE_TYPE=netns).  Each upstream
# program's KTAP is shown nested; it is one test here, failed on any
# "not ok" and on a SKIP of a case rclink must pass: IPv4 ping both ways,
# TCP through socat both ways, the per-queue statistics (qstats) of the
# netdev netlink family agreeing with the link statistics, by-ifindex
# dumps and their errors, qstats across a link down, and the queue list.
# The pair gets IPv6 addresses too (fd00:199::1 and ::2), so ping.py's
# IPv6 case and its TCP case (over IPv6 then) must pass as well.  The
# rest (pause and FEC: the MAC has no such counters; removing a queue: the
# netdev has one) may skip or xfail.
#
# Environment:
#   RCLINK_UPSTREAM_KSFT  the upstream kselftest directory holding
#                         drivers/net/ping.py (default: build/linux-ksft,
#                         made by `make selftests-build` from the
#                         linux-source tarball), e.g. an installed
#                         kselftest tree on a real board's host

lib_dir=$(dirname "$0")/lib
# shellcheck source=lib/rclink_lib.sh
source "$lib_dir/rclink_lib.sh"

ksft=${RCLINK_UPSTREAM_KSFT:-$RCL_TOP/build/linux-ksft/tools/testing/selftests}
up=$ksft/drivers/net
py=/usr/bin/python3

# The cases each program must pass (not skip, not xfail).
must_ping="ping.test_v4 ping.test_v6 ping.test_tcp"
must_stats="stats.pkt_byte_sum stats.qstat_by_ifindex stats.check_down"
must_queues="queues.get_queues"

rcl_t3_setup
[ -f "$up/ping.py" ] ||
	ktap_skip_all "no upstream drivers/net selftests in $ksft (make selftests-build)"
major=$(uname -r | cut -d. -f1) minor=$(uname -r | cut -d. -f2)
[ "$major" -gt 6 ] || { [ "$major" -eq 6 ] && [ "$minor" -ge 12 ]; } ||
	ktap_skip_all "the 6.12 selftests need a 6.12 kernel (qstats, queue-get); this is $(uname -r)"
command -v socat >/dev/null || ktap_skip_all "no socat (ping.py's TCP case)"
"$py" -c 'import yaml' 2>/dev/null || ktap_skip_all "no python3 yaml (YNL)"
mark=$(rcl_kmsg_mark upstream_net)
v6_a=fd00:199::1 v6_b=fd00:199::2
for side in A B; do
	ns=$(rcl_ns $side) dev=$(rcl_if $side) a=$v6_a
	[ $side = B ] && a=$v6_b
	if ! ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=0 \
		"net.ipv6.conf.$dev.disable_ipv6=0" >/dev/null ||
		! ip -n "$ns" -6 addr add "$a/64" dev "$dev" nodad; then
		ktap_skip_all "cannot give $dev an IPv6 address"
	fi
done
ktap_plan 4

# run PROGRAM MUST...: the upstream program in side A's namespace
run() {
	local prog=$1 out rc errs="" c
	shift
	out=$(cd "$up" && ip netns exec "$RCL_NS_A" env \
		NETIF="$RCL_IF_A" LOCAL_V4="$RCL_IP_A" REMOTE_V4="$RCL_IP_B" \
		LOCAL_V6="$v6_a" REMOTE_V6="$v6_b" \
		REMOTE_TYPE=netns REMOTE_ARGS="$RCL_NS_B" \
		timeout -k 5 120 "$py" "./$prog.py" 2>&1)
	rc=$?
	ktap_diag "$out"
	case $rc in
	0) ;;
	4) errs+="$prog.py skipped as a whole; " ;;
	*) errs+="$prog.py exited $rc; " ;;
	esac
	grep -q '^not ok ' <<<"$out" && errs+="failed: $(grep '^not ok ' <<<"$out" |
		sed 's/^not ok [0-9]* //' | tr '\n' ' ')"
	for c in "$@"; do
		grep -qE "^ok [0-9]+ $c\$" <<<"$out" ||
			errs+="$c did not pass ($(grep -E " $c( |\$)" <<<"$out" | head -n 1)); "
	done
	ktap_result "upstream_$prog" "$([ -z "$errs" ]; echo $?)" "$errs"
}

# shellcheck disable=SC2086 # lists of case names
run ping $must_ping
# shellcheck disable=SC2086
run stats $must_stats
# shellcheck disable=SC2086
run queues $must_queues

bad=$(rcl_kmsg_since "$mark" | rcl_splats)
ktap_result kernel_log_clean "$([ -z "$bad" ]; echo $?)" "$bad"
ktap_finish
