#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# TYPE3 as an Ethernet interface: the netdevs of two wired boards, one per
# network namespace, ping each other both ways at MTU 68, 69, 576, 1500,
# 2033..2035 (around the RX MD boundary), 2048
# (frames span RX MDs), 3000, 4077 and 4078 (the maximum), with the largest
# payload that fits (MTU - 28) and DF set; one byte more does not leave
# the host (local "message too long").  MTU 4079 and 67 are refused with a
# message.  The devices go back as found (namespace, MTU, admin state).

lib_dir=$(dirname "$0")/lib
# shellcheck source=lib/rclink_lib.sh
source "$lib_dir/rclink_lib.sh"

# 2034 + 14 bytes of Ethernet header fill one 2048-byte RX MD exactly;
# 2033 and 2035 sit one byte either side of the MD boundary.
MTUS="$RCL_T3_MTU_MIN 69 576 1500 2033 2034 2035 2048 3000 4077 $RCL_T3_MTU_MAX"
COUNT=3

rcl_t3_setup
mark=$(rcl_kmsg_mark t3_ping)

# ping from a side with COUNT full-size DF packets; all must come back.
ping_full() { # side mtu
	local out got
	out=$(rcl_ping "$1" -c "$COUNT" -i 0.02 -W 2 -M "do" -s $(($2 - 28)) -q 2>&1)
	got=$(rcl_ping_received <<<"$out")
	if [ "${got:-0}" -ne "$COUNT" ]; then
		echo "$1 -> peer, mtu $2, -s $(($2 - 28)): ${got:-0}/$COUNT replies"
		echo "$out"
		return 1
	fi
	return 0
}

# One byte over the MTU with DF: refused locally, nothing received.
ping_over() { # side mtu
	local out got
	out=$(rcl_ping "$1" -c 1 -W 1 -M "do" -s $(($2 - 27)) -q 2>&1)
	got=$(rcl_ping_received <<<"$out")
	if [ "${got:-0}" -ne 0 ]; then
		echo "$1: -s $(($2 - 27)) with DF at mtu $2 got a reply"
		echo "$out"
		return 1
	fi
	return 0
}

n=0
for m in $MTUS; do
	n=$((n + 1))
done
ktap_plan $((n + 3))

for m in $MTUS; do
	errs=""
	if ! out=$(rcl_t3_mtu "$m"); then
		ktap_fail "mtu_$m" "ip link set mtu $m: $out"
		continue
	fi
	for side in A B; do
		got=$(rcl_link_field $side mtu)
		[ "$got" = "$m" ] || errs+="$side: mtu reads '$got' after setting $m; "
	done
	# ARP first (its reply may be lost while the link settles).
	rcl_ping A -c 1 -W 2 -q >/dev/null 2>&1
	for side in A B; do
		out=$(ping_full $side "$m") || errs+="$out; "
	done
	out=$(ping_over A "$m") || errs+="$out; "
	ktap_result "mtu_$m" "$([ -z "$errs" ]; echo $?)" "$errs"
done

# Above the maximum and below the minimum: refused, with a message, and
# the MTU is unchanged.
for m in $((RCL_T3_MTU_MAX + 1)) $((RCL_T3_MTU_MIN - 1)); do
	errs=""
	before=$(rcl_link_field A mtu)
	if out=$(ip -n "$RCL_NS_A" link set dev "$RCL_IF_A" mtu "$m" 2>&1); then
		errs+="ip link set mtu $m succeeded; "
	elif [ -z "$out" ]; then
		errs+="ip link set mtu $m failed without a message; "
	else
		ktap_diag "mtu $m: $out"
	fi
	after=$(rcl_link_field A mtu)
	[ "$after" = "$before" ] || errs+="mtu $before -> $after; "
	ktap_result "mtu_${m}_refused" "$([ -z "$errs" ]; echo $?)" "$errs"
done

bad=$(rcl_kmsg_since "$mark" | rcl_splats)
ktap_result kernel_log_clean "$([ -z "$bad" ]; echo $?)" "$bad"
ktap_finish
