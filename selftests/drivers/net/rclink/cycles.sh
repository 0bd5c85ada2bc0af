#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Life cycles with traffic in between, on the wired pair:
#
#   * $RCLINK_CYCLES (50) unbind/bind cycles of both boards, each followed
#     by a TYPE1 message A -> B (rclink-msg) that must arrive whole;
#   * rmmod while a file of /dev/rclinkN is open is refused (EBUSY: the
#     file holds the module) and leaves everything working;
#   * $RCLINK_CYCLES rmmod/insmod cycles, each followed by a message,
#     with TYPE3 frames flowing from A while the module goes;
#   * afterwards nothing stale (interrupt lines, debugfs dirs) and the
#     kernel log is clean.
#
# Environment: RCLINK_TOOL, RCLINK_CYCLES.

lib_dir=$(dirname "$0")/lib
# shellcheck source=lib/rclink_lib.sh
source "$lib_dir/rclink_lib.sh"

CYCLES=${RCLINK_CYCLES:-50}
MSG=$RCL_TOP/build/tools/rclink-msg
QP=21

rcl_t1_setup
[ -x "$MSG" ] || ktap_skip_all "no $MSG (make tools)"
A=$RCL_T1_A
B=$RCL_T1_B
bdf_a=$(rcl_t1_bdf "$A")
bdf_b=$(rcl_t1_bdf "$B")
irq0=$(rcl_irq_lines)
mark=$(rcl_kmsg_mark cycles)
ktap_plan 5

# The boards' names, found by PCI address: after an insmod the probe
# order (and so the names) can differ from the last load's.
names() {
	A=$(rcl_t1_dev_at "$bdf_a") && B=$(rcl_t1_dev_at "$bdf_b") || return 1
	RCL_T1_A=$A
	RCL_T1_B=$B
}

# QP on both boards, then one message A -> B; prints what went wrong
message() { # tag
	local out
	for dev in "$A" "$B"; do
		[ -e "/dev/$dev" ] || { echo "no /dev/$dev"; return 1; }
	done
	out=$(rcl_tool dev set dev "$A" ip "$RCL_T1_IP_A" 2>&1 &&
		rcl_tool dev set dev "$B" ip "$RCL_T1_IP_B" 2>&1) || { echo "dev set: $out"; return 1; }
	rcl_tool qp del dev "$A" qpn $QP >/dev/null 2>&1
	rcl_tool qp del dev "$B" qpn $QP >/dev/null 2>&1
	out=$(rcl_tool qp add dev "$A" qpn $QP dqpn $QP dip "$RCL_T1_IP_B" dmac "$RCL_T1_MAC_B" 2>&1 &&
		rcl_tool qp add dev "$B" qpn $QP dqpn $QP dip "$RCL_T1_IP_A" dmac "$RCL_T1_MAC_A" 2>&1) ||
		{ echo "qp add: $out"; return 1; }
	"$MSG" recv "$B" $QP 1 10 >"$RCL_T1_TMP/recv" 2>&1 &
	local rpid=$!
	out=$("$MSG" send "$A" $QP "cycle $1" 2>&1) || { echo "send: $out"; wait $rpid; return 1; }
	wait $rpid || { echo "recv: $(cat "$RCL_T1_TMP/recv")"; return 1; }
	grep -q "cycle $1" "$RCL_T1_TMP/recv" || { echo "received: $(cat "$RCL_T1_TMP/recv")"; return 1; }
	rcl_tool qp del dev "$A" qpn $QP >/dev/null 2>&1
	rcl_tool qp del dev "$B" qpn $QP >/dev/null 2>&1
	return 0
}

err=""
for ((i = 1; i <= CYCLES && !${#err}; i++)); do
	rcl_unbind "$bdf_a" && rcl_unbind "$bdf_b" || err="cycle $i: unbind failed"
	[ -z "$err" ] && { rcl_bind "$bdf_a" && rcl_bind "$bdf_b" || err="cycle $i: bind failed"; }
	[ -z "$err" ] && { names || err="cycle $i: a board has no name"; }
	[ -z "$err" ] && { out=$(message "bind $i") || err="cycle $i: $out"; }
done
ktap_result "unbind_bind_traffic_x$CYCLES" "$([ -z "$err" ]; echo $?)" "$err"

# An open file holds the module: rmmod is refused and nothing breaks.
errs=""
names
exec 9<>"/dev/$A"
if out=$(rmmod rclink 2>&1); then
	errs+="rmmod succeeded with /dev/$A open; "
	rcl_module_load >/dev/null 2>&1
elif ! grep -qi "in use\|busy" <<<"$out"; then
	errs+="rmmod: '$out', want 'in use'; "
fi
exec 9<&-
out=$(message "busy") || errs+="after the refused rmmod: $out; "
ktap_result rmmod_refused_while_open "$([ -z "$errs" ]; echo $?)" "$errs"

# rmmod/insmod with TYPE3 frames leaving A while it happens.  The python
# sender is the background job itself (exec), so that the kill below ends
# it, and it holds no pipe of the test runner (a leftover writer would keep
# run_all.sh waiting for the end of the test's output).  Ethernet type
# 0x9000 (loopback): a TYPE3 frame for the classifier, whatever the header
# format.  It stops by itself after 10 minutes.  The netdev is A's by PCI
# address each time (a load may name the boards' netdevs in another order).
flood() { # bdf
	exec "$RCL_PY" - "$1" <<'EOF' >/dev/null 2>&1
import os, socket, sys, time
end = time.monotonic() + 600
while time.monotonic() < end:
    try:
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
        s.bind((os.listdir('/sys/bus/pci/devices/%s/net' % sys.argv[1])[0],
                0))
        while time.monotonic() < end:
            s.send(b'\xff' * 6 + b'\x02\x00\x00\x00\x00\x01\x90\x00' + b'x' * 200)
    except (OSError, IndexError):
        time.sleep(0.05)   # the netdev went with the module: wait for it
EOF
}
# A's netdev, up
if_a_up() {
	local n
	for n in "/sys/bus/pci/devices/$bdf_a/net/"*; do
		[ -e "$n" ] && ip link set dev "${n##*/}" up 2>/dev/null && return 0
	done
	return 1
}
fpid=""
if if_a_up; then
	flood "$bdf_a" &
	fpid=$!
fi
err=""
for ((i = 1; i <= CYCLES && !${#err}; i++)); do
	out=$(rcl_module_unload 2>&1) || err="cycle $i: rmmod: $out"
	[ -z "$err" ] && { out=$(rcl_module_load 2>&1) || err="cycle $i: insmod: $out"; }
	[ -n "$fpid" ] && if_a_up
	[ -z "$err" ] && { names || err="cycle $i: a board has no name"; }
	[ -z "$err" ] && { out=$(message "reload $i") || err="cycle $i: $out"; }
done
[ -n "$fpid" ] && kill "$fpid" 2>/dev/null && wait "$fpid" 2>/dev/null
rcl_module_loaded || rcl_module_load >/dev/null 2>&1
names             # for the cleanup
ktap_result "rmmod_insmod_traffic_x$CYCLES" "$([ -z "$err" ]; echo $?)" "$err"

errs=""
irq1=$(rcl_irq_lines)
[ "$irq1" -eq "$irq0" ] || errs+="rclink interrupt lines: $irq0 before, $irq1 after; "
ndirs=$(rcl_debugfs_dirs)
nbound=$(rcl_driver_count)
[ "$ndirs" -eq "$nbound" ] || errs+="$ndirs debugfs dirs for $nbound bound boards; "
ktap_result nothing_stale "$([ -z "$errs" ]; echo $?)" "$errs"

bad=$(rcl_kmsg_since "$mark" | rcl_splats)
ktap_result kernel_log_clean "$([ -z "$bad" ]; echo $?)" "$bad"
ktap_finish
