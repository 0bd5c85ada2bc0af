#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ethtool on the TYPE3 netdev: -i names driver rclink and the board's PCI
# address; the link settings say 100000Mb/s, full duplex, no
# autonegotiation while there is a carrier, unknown speed without one; -S has a constant set of names (the same on both boards and
# across down/up) and none of the rtnl_link_stats64 counters; -g shows
# power-of-two ring sizes within their maximums; -G changes them (and a
# TCP transfer and pings still work with the new rings), a size above the
# maximum is refused; `ip -s link` counters move with traffic.  Rings and
# MTU are restored at the end.

lib_dir=$(dirname "$0")/lib
# shellcheck source=lib/rclink_lib.sh
source "$lib_dir/rclink_lib.sh"

rcl_t3_setup
mark=$(rcl_kmsg_mark t3_ethtool)
command -v ethtool >/dev/null || ktap_skip_all "no ethtool"

is_pow2() { [ "$1" -gt 0 ] && [ $(($1 & ($1 - 1))) -eq 0 ]; }

# "RX TX RXMAX TXMAX" of a side.
rings_of() { # side
	rcl_nsx "$1" ethtool -g "$(rcl_if "$1")" 2>/dev/null |
		awk '/^Pre-set maximums/ { s = "max" } /^Current hardware/ { s = "cur" }
		$1 == "RX:" { v[s "rx"] = $2 } $1 == "TX:" { v[s "tx"] = $2 }
		END { print v["currx"], v["curtx"], v["maxrx"], v["maxtx"] }'
}

stat_names() { rcl_ethtool_stats "$1" | awk '{ print $1 }' | sort; }

ktap_plan 11

# -- ethtool -i ------------------------------------------------------------
errs=""
for side in A B; do
	out=$(rcl_nsx $side ethtool -i "$(rcl_if $side)" 2>&1)
	drv=$(sed -n 's/^driver: //p' <<<"$out")
	bus=$(sed -n 's/^bus-info: //p' <<<"$out")
	[ "$drv" = rclink ] || errs+="$side: driver '$drv'; "
	[ "$bus" = "$(rcl_bdf $side)" ] || errs+="$side: bus-info '$bus', want $(rcl_bdf $side); "
done
ktap_result ethtool_i "$([ -z "$errs" ]; echo $?)" "$errs"

# -- ethtool DEV (link settings) --------------------------------------------
errs=""
out=$(rcl_nsx A ethtool "$RCL_IF_A" 2>&1)
for want in "Speed: 100000Mb/s" "Duplex: Full" "Auto-negotiation: off" \
	"Link detected: yes"; do
	grep -qF "$want" <<<"$out" || errs+="A: no '$want' in ethtool $RCL_IF_A; "
done
# without a carrier (A administratively down): no speed
rcl_nsx A ip link set dev "$RCL_IF_A" down
out=$(rcl_nsx A ethtool "$RCL_IF_A" 2>&1)
grep -qF "Speed: Unknown!" <<<"$out" || errs+="A down: $(grep Speed <<<"$out"); "
rcl_nsx A ip link set dev "$RCL_IF_A" up
rcl_wait_carrier A 1 || errs+="A: no carrier after up; "
[ -z "$errs" ] || ktap_diag "$out"
ktap_result ethtool_link "$([ -z "$errs" ]; echo $?)" "$errs"

# -- ethtool -S ------------------------------------------------------------
errs=""
names_a=$(stat_names A)
names_b=$(stat_names B)
[ -n "$names_a" ] || errs+="no ethtool -S counters; "
[ "$names_a" = "$names_b" ] || errs+="A and B have different counter names; "
dup=$(grep -x -E '(rx|tx)_(packets|bytes|dropped|errors)' <<<"$names_a" | tr '\n' ' ')
[ -z "$dup" ] || errs+="rtnl stats64 counters repeated in ethtool -S: $dup; "
# the netdev's own counters only: the board's are devlink's (health
# diagnose, reporter events)
board=$(grep -E '^(irq_total|evt_|t1_|t2_|rc_intr_|qp_|recv_|nocnp|retry_tmo|selftest_irq|unknown)' <<<"$names_a" | tr '\n' ' ')
[ -z "$board" ] || errs+="board-wide counters in ethtool -S: $board; "
grep -q '^nonr_st1_' <<<"$names_a" || errs+="no nonr_st1_ counters in ethtool -S; "
ip -n "$RCL_NS_A" link set dev "$RCL_IF_A" down
names_down=$(stat_names A)
ip -n "$RCL_NS_A" link set dev "$RCL_IF_A" up
rcl_wait_carrier A 1 || errs+="no carrier after up; "
names_up=$(stat_names A)
[ "$names_down" = "$names_a" ] || errs+="names change when down: $(diff <(echo "$names_a") <(echo "$names_down") | grep '^[<>]' | tr '\n' ' '); "
[ "$names_up" = "$names_a" ] || errs+="names change after down/up; "
ktap_diag "ethtool -S: $(wc -l <<<"$names_a") counters"
ktap_result ethtool_S_names "$([ -z "$errs" ]; echo $?)" "$errs"

# -- ip -s link ------------------------------------------------------------
read -r arx_p arx_b atx_p atx_b _ <<<"$(rcl_link_stats A)"
read -r brx_p brx_b btx_p btx_b _ <<<"$(rcl_link_stats B)"
got=$(rcl_ping A -c 10 -i 0.05 -W 2 -s 1000 -q 2>&1 | rcl_ping_received)
read -r arx_p2 arx_b2 atx_p2 atx_b2 _ <<<"$(rcl_link_stats A)"
read -r brx_p2 brx_b2 btx_p2 btx_b2 _ <<<"$(rcl_link_stats B)"
errs=""
[ "${got:-0}" -ge 9 ] || errs+="${got:-0}/10 replies; "
moved() { # name before after min
	[ $(($3 - $2)) -ge "$4" ] || errs+="$1 moved by $(($3 - $2)), want >= $4; "
}
moved "A tx_packets" "$atx_p" "$atx_p2" 10
moved "A rx_packets" "$arx_p" "$arx_p2" 9
moved "B rx_packets" "$brx_p" "$brx_p2" 10
moved "B tx_packets" "$btx_p" "$btx_p2" 9
[ $((atx_b2 - atx_b)) -ge 10000 ] || errs+="A tx_bytes +$((atx_b2 - atx_b)); "
[ $((brx_b2 - brx_b)) -ge 10000 ] || errs+="B rx_bytes +$((brx_b2 - brx_b)); "
[ $((btx_b2 - btx_b)) -ge 9000 ] || errs+="B tx_bytes +$((btx_b2 - btx_b)); "
[ $((arx_b2 - arx_b)) -ge 9000 ] || errs+="A rx_bytes +$((arx_b2 - arx_b)); "
ktap_result ip_s_link_counters "$([ -z "$errs" ]; echo $?)" "$errs"

# -- TX from the skb's data -------------------------------------------------
# A frame in one piece of 60 bytes or more is sent from its own (mapped)
# data; shorter ones (ARP) and frames in pieces are copied into the slot's
# buffer.  Ten 1042-byte ICMP echoes from A: each one mapped.
errs=""
m0=$(rcl_ethtool_stat A tx_mapped)
c0=$(rcl_ethtool_stat A tx_copied)
e0=$(rcl_ethtool_stat A tx_map_err)
if [ -z "$m0" ] || [ -z "$c0" ] || [ -z "$e0" ]; then
	errs+="no tx_mapped/tx_copied/tx_map_err in ethtool -S; "
else
	got=$(rcl_ping A -c 10 -i 0.02 -W 2 -s 1000 -q 2>&1 | rcl_ping_received)
	[ "${got:-0}" -ge 9 ] || errs+="${got:-0}/10 replies; "
	m1=$(rcl_ethtool_stat A tx_mapped)
	c1=$(rcl_ethtool_stat A tx_copied)
	e1=$(rcl_ethtool_stat A tx_map_err)
	ktap_diag "A: tx_mapped +$((m1 - m0)), tx_copied +$((c1 - c0)), tx_map_err +$((e1 - e0))"
	[ $((m1 - m0)) -ge 10 ] || errs+="tx_mapped +$((m1 - m0)) for 10 echoes; "
	[ $((e1 - e0)) -eq 0 ] || errs+="tx_map_err +$((e1 - e0)); "
	# a 28-byte payload makes a 42-byte frame: copied and padded
	c0=$c1
	got=$(rcl_ping A -c 3 -i 0.02 -W 2 -s 0 -q 2>&1 | rcl_ping_received)
	[ "${got:-0}" -ge 2 ] || errs+="${got:-0}/3 replies to 42-byte frames; "
	c1=$(rcl_ethtool_stat A tx_copied)
	[ $((c1 - c0)) -ge 3 ] || errs+="tx_copied +$((c1 - c0)) for 3 short echoes; "
fi
ktap_result tx_mapped "$([ -z "$errs" ]; echo $?)" "$errs"

# -- ethtool -g ------------------------------------------------------------
errs=""
read -r rx tx rxmax txmax <<<"$(rings_of A)"
ktap_diag "rings: rx $rx tx $tx (max rx $rxmax tx $txmax)"
for v in rx tx rxmax txmax; do
	[ -n "${!v}" ] || errs+="ethtool -g shows no $v; "
done
if [ -z "$errs" ]; then
	is_pow2 "$rx" || errs+="rx ring $rx not a power of two; "
	is_pow2 "$tx" || errs+="tx ring $tx not a power of two; "
	[ "$rx" -le "$rxmax" ] || errs+="rx $rx > max $rxmax; "
	[ "$tx" -le "$txmax" ] || errs+="tx $tx > max $txmax; "
	[ "$rxmax" -le 4096 ] && [ "$txmax" -le 4096 ] || errs+="max above the 4096 MDs of a ring; "
fi
ktap_result ethtool_g "$([ -z "$errs" ]; echo $?)" "$errs"

# -- ethtool -G ------------------------------------------------------------
# Halve both rings (double when already small), then traffic.
new_size() { # cur max
	if [ "$1" -ge 128 ]; then echo $(($1 / 2)); elif [ $(($1 * 2)) -le "$2" ]; then echo $(($1 * 2)); else echo "$1"; fi
}
if [ -n "$rx" ] && [ -n "$tx" ] && [ -n "$rxmax" ] && [ -n "$txmax" ]; then
	nrx=$(new_size "$rx" "$rxmax")
	ntx=$(new_size "$tx" "$txmax")
	errs=""
	for side in A B; do
		out=$(rcl_nsx $side ethtool -G "$(rcl_if $side)" rx "$nrx" tx "$ntx" 2>&1) ||
			errs+="$side: ethtool -G rx $nrx tx $ntx: $out; "
		read -r grx gtx _ <<<"$(rings_of $side)"
		[ "$grx $gtx" = "$nrx $ntx" ] || errs+="$side: rings '$grx $gtx' after -G rx $nrx tx $ntx; "
	done
	for side in A B; do
		rcl_wait_carrier $side 1 || errs+="$side: no carrier after -G; "
	done
	ktap_result ethtool_G "$([ -z "$errs" ]; echo $?)" "$errs"

	# Traffic on the new rings: pings and a 4 MiB TCP transfer (wraps them).
	errs=""
	rcl_ping A -c 1 -W 2 -q >/dev/null 2>&1
	for side in A B; do
		got=$(rcl_ping $side -c 3 -i 0.2 -W 2 -q 2>&1 | rcl_ping_received)
		[ "${got:-0}" -eq 3 ] || errs+="$side: ${got:-0}/3 replies; "
	done
	rcl_nsx B "$RCL_PY" "$RCL_LIB/rclinktest.py" tcp_sink "$RCL_IP_B" 5202 120 >"/tmp/rcl_sink.$$" 2>&1 &
	sink=$!
	sleep 1
	src=$(rcl_nsx A timeout 150 "$RCL_PY" "$RCL_LIB/rclinktest.py" tcp_source "$RCL_IP_B" 5202 120 $((4 << 20)) 2>&1)
	wait "$sink"
	dst=$(cat "/tmp/rcl_sink.$$")
	rm -f "/tmp/rcl_sink.$$"
	# bytes and sha256 of both ends ("seconds" differs)
	src_sum=$(sed -n 's/.*"bytes": \([0-9]*\), "sha256": "\([0-9a-f]*\)".*/\1 \2/p' <<<"$src")
	dst_sum=$(sed -n 's/.*"bytes": \([0-9]*\), "sha256": "\([0-9a-f]*\)".*/\1 \2/p' <<<"$dst")
	[ -n "$src_sum" ] && [ "$src_sum" = "$dst_sum" ] ||
		errs+="TCP 4 MiB: sent '$src' received '$dst'; "
	ktap_result traffic_after_G "$([ -z "$errs" ]; echo $?)" "$errs"

	# Above the maximum: refused (by ethtool or the driver), unchanged.
	errs=""
	if out=$(rcl_nsx A ethtool -G "$RCL_IF_A" rx $((rxmax * 2)) 2>&1); then
		errs+="ethtool -G rx $((rxmax * 2)) (max $rxmax) succeeded; "
	fi
	read -r grx gtx _ <<<"$(rings_of A)"
	[ "$grx $gtx" = "$nrx $ntx" ] || errs+="rings '$grx $gtx' after a refused -G; "
	ktap_result ethtool_G_above_max "$([ -z "$errs" ]; echo $?)" "$errs"

	# Back to the sizes found (also done at exit).
	errs=""
	for side in A B; do
		out=$(rcl_nsx $side ethtool -G "$(rcl_if $side)" rx "$rx" tx "$tx" 2>&1) ||
			errs+="$side: ethtool -G rx $rx tx $tx: $out; "
	done
	for side in A B; do
		rcl_wait_carrier $side 1 || errs+="$side: no carrier after -G; "
	done
	rcl_ping A -c 1 -W 2 -q >/dev/null 2>&1
	got=$(rcl_ping A -c 3 -i 0.2 -W 2 -q 2>&1 | rcl_ping_received)
	[ "${got:-0}" -eq 3 ] || errs+="${got:-0}/3 replies after restoring the rings; "
	ktap_result ethtool_G_restore "$([ -z "$errs" ]; echo $?)" "$errs"
else
	for t in ethtool_G traffic_after_G ethtool_G_above_max ethtool_G_restore; do
		ktap_fail "$t" "no ring sizes from ethtool -g"
	done
fi

bad=$(rcl_kmsg_since "$mark" | rcl_splats)
ktap_result kernel_log_clean "$([ -z "$bad" ]; echo $?)" "$bad"
ktap_finish
