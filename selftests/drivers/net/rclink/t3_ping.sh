#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# TYPE3 as an Ethernet interface: the netdevs of two wired boards, one per
# network namespace, ping each other both ways at MTU 68, 69, 576, 1500,
# 2033..2035 (around the RX MD boundary), 2048
# (frames span RX MDs), 3000, 4077 and 4078 (the maximum), with the largest
# payload that fits (MTU - 28) and DF set; one byte more does not leave
# the host (local "message too long").  MTU 4079 and 67 are refused with a
# message.  Under MSI-X every TYPE3 interrupt of the run came on the TYPE3
# vector (SHIM_T3_IRQ): ethtool -S t3_irq_vector moved as t3_nonr did and
# the board's "-t3" line of /proc/interrupts counted.  The devices go back
# as found (namespace, MTU, admin state).  RCLINK_T3_MTUS="1500 ..." pings
# at those MTUs only (make check's RTL pair: one MTU).

lib_dir=$(dirname "$0")/lib
# shellcheck source=lib/rclink_lib.sh
source "$lib_dir/rclink_lib.sh"

# 2034 + 14 bytes of Ethernet header fill one 2048-byte RX MD exactly;
# 2033 and 2035 sit one byte either side of the MD boundary.
MTUS=${RCLINK_T3_MTUS:-"$RCL_T3_MTU_MIN 69 576 1500 2033 2034 2035 2048 3000 4077 $RCL_T3_MTU_MAX"}
COUNT=3

rcl_t3_setup
mark=$(rcl_kmsg_mark t3_ping)

# ping from a side with COUNT full-size DF packets; all must come back.
# -w: iputils ping waits for all COUNT replies until the deadline; without
# it, once a reply came, it waits only twice the longest RTT seen (at least
# the interval) after the last request, and a slower reply counts as lost
# (on the co-simulated RTL board RTTs vary from 2 to 100 ms).  With -w
# it sends on until COUNT replies came, so a slow reply may bring one more
# request than COUNT: every request sent must have its reply.
ping_full() { # side mtu
	local out got sent
	out=$(rcl_ping "$1" -c "$COUNT" -i 0.02 -W 2 -w 10 -M "do" -s $(($2 - 28)) -q 2>&1)
	got=$(rcl_ping_received <<<"$out")
	sent=$(sed -n 's/^\([0-9]*\) packets transmitted.*/\1/p' <<<"$out" | tail -n 1)
	if [ "${got:-0}" -lt "$COUNT" ] || [ "${got:-0}" -ne "${sent:-0}" ]; then
		echo "$1 -> peer, mtu $2, -s $(($2 - 28)): ${got:-0} replies to ${sent:-0} requests, want $COUNT of $COUNT at least"
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

# "t3_nonr t3_irq_vector hard-interrupts-of-the-t3-vector" of a side
t3_irq_snap() { # side
	local name
	name="rclink-$(rcl_bdf "$1")-t3"
	echo "$(rcl_ethtool_stat "$1" t3_nonr) $(rcl_ethtool_stat "$1" t3_irq_vector)" \
		"$(awk -v n="$name" '$NF == n {
			s = 0
			for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++)
				s += $i
			print s }' /proc/interrupts)"
}

# TYPE3 interrupts since the snapshot: all on the vector, and some
t3_irq_check() { # side snapshot
	local m0 v0 i0 m1 v1 i1 end=$((SECONDS + 5))
	read -r m0 v0 i0 <<<"$2"
	read -r m1 v1 i1 <<<"$(t3_irq_snap "$1")"
	# the two counters are read one after the other while the netdev's
	# own traffic (ARP, IPv6) may still raise interrupts: read again
	# until they agree, for a few seconds
	while [ -n "$i1" ] && [ $((m1 - m0)) -ne $((v1 - v0)) ] &&
	      [ "$SECONDS" -lt "$end" ]; do
		sleep 0.2
		read -r m1 v1 i1 <<<"$(t3_irq_snap "$1")"
	done
	if [ -z "$i1" ]; then
		echo "$1: no -t3 line in /proc/interrupts"
		return 1
	fi
	if [ $((v1 - v0)) -le 0 ] || [ $((i1 - i0)) -le 0 ] ||
	   [ $((m1 - m0)) -ne $((v1 - v0)) ]; then
		echo "$1: t3_nonr +$((m1 - m0)), t3_irq_vector +$((v1 - v0))," \
			"-t3 hard interrupts +$((i1 - i0))"
		return 1
	fi
	echo "$1: $((v1 - v0)) TYPE3 interrupts, all on the TYPE3 vector"
	return 0
}

n=0
for m in $MTUS; do
	n=$((n + 1))
done
ktap_plan $((n + 4))

declare -A irq_snap=()
for side in A B; do
	irq_snap[$side]=$(t3_irq_snap $side)
done

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

errs=""
why=""
for side in A B; do
	mode=$(rcl_irq_mode "$(rcl_bdf $side)")
	if [ "${mode%% *}" != msix ] || [ "${mode##* }" -lt 3 ]; then
		why+="$side: interrupts '$mode', no TYPE3 vector; "
		continue
	fi
	if out=$(t3_irq_check $side "${irq_snap[$side]}"); then
		ktap_diag "$out"
	else
		errs+="$out; "
	fi
done
if [ -n "$why" ] && [ -z "$errs" ]; then
	ktap_skip irq_vector "$why"
else
	ktap_result irq_vector "$([ -z "$errs" ]; echo $?)" "$errs$why"
fi

bad=$(rcl_kmsg_since "$mark" | rcl_splats)
ktap_result kernel_log_clean "$([ -z "$bad" ]; echo $?)" "$bad"
ktap_finish
