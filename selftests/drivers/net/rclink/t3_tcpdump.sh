#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Packet capture on the TYPE3 netdev: tcpdump (or dumpcap/tshark) on B's
# interface sees A's ICMP echo requests and B's replies, small and
# 4 KiB-MTU sized, with the right lengths.  The wire of the QEMU board pair
# ($RCLINK_RESULTS/wire.pcap, written by filter-dump; that part is skipped
# without it) decodes cleanly with tshark: io,stat exits 0, our ICMP frames
# are there at full size, no malformed frame.  $RCLINK_WIRE_PCAP names
# another live capture of the wire.

lib_dir=$(dirname "$0")/lib
# shellcheck source=lib/rclink_lib.sh
source "$lib_dir/rclink_lib.sh"

BIG=$RCL_T3_MTU_MAX
tmp=""
cap_pid=""
# shellcheck disable=SC2317 # called through rcl_t3_cleanup_hook
dump_cleanup() {
	[ -n "$cap_pid" ] && kill "$cap_pid" 2>/dev/null
	[ -n "$tmp" ] && rm -rf "$tmp"
}
rcl_t3_cleanup_hook=dump_cleanup

rcl_t3_setup
tmp=$(mktemp -d)
mark=$(rcl_kmsg_mark t3_tcpdump)
command -v tshark >/dev/null || ktap_skip_all "no tshark"

ktap_plan 5

# Start a capture on B's interface into $tmp/if.pcap; 0 when it runs.
capture_start() {
	local end
	: >"$tmp/cap.log"
	# ip netns exec execs the capture tool: $! is its pid.
	if command -v tcpdump >/dev/null; then
		ip netns exec "$RCL_NS_B" tcpdump -n -U -i "$RCL_IF_B" -w "$tmp/if.pcap" >"$tmp/cap.log" 2>&1 &
		cap_pid=$!
	else
		ip netns exec "$RCL_NS_B" dumpcap -i "$RCL_IF_B" -w "$tmp/if.pcap" >"$tmp/cap.log" 2>&1 &
		cap_pid=$!
	fi
	end=$((SECONDS + 60))
	until grep -q -E 'listening on|Capturing on|File:' "$tmp/cap.log"; do
		kill -0 "$cap_pid" 2>/dev/null || return 1
		[ "$SECONDS" -gt "$end" ] && return 1
		sleep 0.2
	done
	sleep 0.5
	return 0
}

capture_stop() {
	local i
	kill -INT "$cap_pid" 2>/dev/null
	for ((i = 0; i < 100; i++)); do
		kill -0 "$cap_pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$cap_pid" 2>/dev/null
	wait "$cap_pid" 2>/dev/null
	cap_pid=""
}

# The live wire of the pair: $RCLINK_WIRE_PCAP, else the results dir's.
wire=$(rcl_wire_pcap)
wire_size0=$(stat -c %s "$wire" 2>/dev/null || echo 0)

# The frame counts of the first data row of `tshark -q -z io,stat,0,...`
# on stdin, one per column.
io_stat_row() {
	awk -F'|' '/<>/ { for (i = 3; i < NF; i += 2) if ($i ~ /[0-9]/) printf "%s ", $i + 0; print ""; exit }'
}

# Frame counts of a capture matching each display filter (one tshark pass).
io_stat() { # file filter...
	local f=$1 z=io,stat,0 flt
	shift
	for flt in "$@"; do
		z+=",$flt"
	done
	tshark -r "$f" -q -z "$z" 2>/dev/null | io_stat_row
}

# -- capture on the interface ------------------------------------------------
errs=""
rcl_t3_mtu "$BIG" >/dev/null || errs+="cannot set mtu $BIG; "
rcl_ping A -c 1 -W 2 -q >/dev/null 2>&1
if capture_start; then
	sgot=$(rcl_ping A -c 5 -i 0.2 -W 2 -s 100 -q 2>&1 | rcl_ping_received)
	bgot=$(rcl_ping A -c 3 -i 0.2 -W 2 -s $((BIG - 28)) -M "do" -q 2>&1 | rcl_ping_received)
	sleep 1
	capture_stop
	[ "${sgot:-0}" -eq 5 ] || errs+="${sgot:-0}/5 small replies; "
	[ "${bgot:-0}" -eq 3 ] || errs+="${bgot:-0}/3 replies at mtu $BIG; "
	flt="ip.addr == $RCL_IP_A && ip.addr == $RCL_IP_B && icmp"
	read -r small big <<<"$(io_stat "$tmp/if.pcap" "$flt && frame.len == 142" \
		"$flt && frame.len == $((BIG + 14))")"
	small=${small:-0} big=${big:-0}
	[ "$small" -eq 10 ] || errs+="capture has $small ICMP frames of 142 bytes, want 10 (5 requests + 5 replies); "
	[ "$big" -eq 6 ] || errs+="capture has $big ICMP frames of $((BIG + 14)) bytes, want 6; "
	[ -n "$errs" ] && errs+=$(tshark -r "$tmp/if.pcap" 2>&1 | head -n 30)
	ktap_result capture_on_interface "$([ -z "$errs" ]; echo $?)" "$errs"
else
	ktap_fail capture_on_interface "capture did not start: $(cat "$tmp/cap.log")"
fi

# -- the wire ------------------------------------------------------------------
sleep 1     # let QEMU write the last frames
why=""
if [ -z "$wire" ] || [ ! -s "$wire" ]; then
	why="no \$RCLINK_RESULTS/wire.pcap or \$RCLINK_WIRE_PCAP (QEMU filter-dump of the pair's wire)"
elif [ "$(stat -c %s "$wire")" -le "$wire_size0" ]; then
	why="$wire did not grow with this test's traffic: not the live wire"
fi
if [ -n "$why" ]; then
	for t in wire_io_stat wire_icmp wire_not_malformed; do
		ktap_skip "$t" "$why"
	done
else
	# One pass (tshark is slow under TCG): all frames, ours, ours at
	# full size, malformed.
	# TYPE1 frames of other tests (UDP 4791) carry the RH, not an
	# InfiniBand BTH: tshark's RRoCE dissector would call them malformed
	# (t1_wire.py checks them), so it is off here too, and their payload
	# is plain data: else a heuristic dissector may claim it (CIGI took
	# an RH whose first bytes read as its header, then called the rest
	# malformed).
	flt="ip.addr == $RCL_IP_A && ip.addr == $RCL_IP_B && icmp"
	out=$(tshark -r "$wire" --disable-protocol infiniband -d udp.port==4791,data -q -z "io,stat,0,frame,$flt,$flt && frame.len == $((BIG + 14)),_ws.malformed" 2>&1)
	rc=$?
	read -r nall n nbig nbad <<<"$(io_stat_row <<<"$out")"
	ktap_diag "wire: ${nall:-?} frames, ${n:-?} ICMP of this test (${nbig:-?} of $((BIG + 14)) bytes), ${nbad:-?} malformed"
	ktap_result wire_io_stat "$([ "$rc" -eq 0 ] && [ -n "$nall" ]; echo $?)" \
		"$(grep -v '^Running as user' <<<"$out")"

	errs=""
	[ "${n:-0}" -ge 16 ] || errs+="${n:-0} ICMP frames of this test on the wire, want >= 16; "
	[ "${nbig:-0}" -ge 6 ] || errs+="${nbig:-0} ICMP frames of $((BIG + 14)) bytes on the wire, want >= 6; "
	ktap_result wire_icmp "$([ -z "$errs" ]; echo $?)" "$errs"

	bad=""
	if [ "${nbad:-x}" != 0 ]; then
		bad="${nbad:-?} malformed frames: $(tshark -r "$wire" --disable-protocol infiniband -d udp.port==4791,data -Y _ws.malformed 2>&1 |
			grep -v '^Running as user' | head -n 20)"
	fi
	ktap_result wire_not_malformed "$([ -z "$bad" ]; echo $?)" "$bad"
fi

bad=$(rcl_kmsg_since "$mark" | rcl_splats)
ktap_result kernel_log_clean "$([ -z "$bad" ]; echo $?)" "$bad"
ktap_finish
