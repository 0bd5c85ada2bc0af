#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A TYPE1 QP whose retries run out (seed 000 "TX retry times over",
# Documentation/uapi/rclink-dev.rst "Faults", rclink-tool.rst): with
# retry_timer 200 us and retry_cnt 3 on board A, the wire from A is cut
# (the fault injector loses every frame) while a message is in flight:
#
#   * `rclink -j monitor` (started before) prints qp-fatal for the QP with
#     the PSN the recovery read;
#   * `rclink qp show` says state fatal, the fatal and tx_flushed counters
#     moved;
#   * the file bound to the QP sees POLLERR, write() fails ECONNRESET, its
#     tx_flushed counts the message;
#   * with the wire back, the QP is re-armed (`qp set ... state ready` on
#     A, `qp set ... rq_psn <sq_psn + 1>` on B); monitor prints qp-ready;
#     messages flow again, byte-exact, and the flushed one never arrives.
#
# Environment: RCLINK_TOOL, RCLINK_T1_DEVS="rclinkA rclinkB".  Needs the
# wire fault hooks (BAR0 mapped while bound: iomem=relaxed), else SKIP.

lib_dir=$(dirname "$0")/lib
# shellcheck source=lib/rclink_lib.sh
source "$lib_dir/rclink_lib.sh"

QP=3
mon_pid=""
# shellcheck disable=SC2317 # called through rcl_t1_cleanup_hook
fatal_cleanup() {
	[ -n "$mon_pid" ] && kill "$mon_pid" 2>/dev/null && wait "$mon_pid" 2>/dev/null
	mon_pid=""
}
rcl_t1_cleanup_hook=fatal_cleanup

rcl_t1_setup
A=$RCL_T1_A
B=$RCL_T1_B
EPSN_W=$(rcl_json_get epsn_w <"$RCL_T1_TMP/dev_A.json")
tmp=$RCL_T1_TMP

# The wire hooks must work here, else there is no way to cut the wire
# (a real board ignores them: a 1 us delay set and read back tells).
out=$(rcl_wire "$A" delay=1 2>&1)
case $? in
0) out=$(rcl_wire "$A" off 2>&1) || rcl_t1_setup_fail "rclink_wire.py $A off: $out" ;;
4) ktap_skip_all "wire fault hooks: $out" ;;
*) rcl_t1_setup_fail "rclink_wire.py $A delay=1: $out" ;;
esac
mark=$(rcl_kmsg_mark t1_fatal)
ktap_plan 10

t() {
	local out
	if ! out=$(rcl_tool "$@" 2>&1); then
		echo "rclink $*: exit $?: $out"
		return 1
	fi
	return 0
}

# Wait up to 10 s for a monitor line with all the words given; prints it.
mon_wait() {
	local end line
	end=$((SECONDS + 10))
	while [ "$SECONDS" -le "$end" ]; do
		line=$(grep -F "$1" "$tmp/mon" | grep -F "\"$2\"" |
			grep -E "\"qpn\": *$3([^0-9]|$)" | tail -n 1)
		[ -n "$line" ] && echo "$line" && return 0
		sleep 0.1
	done
	return 1
}

# -- set up ---------------------------------------------------------------------
rcl_tool -j monitor >"$tmp/mon" 2>&1 &
mon_pid=$!
sleep 0.5
errs=""
kill -0 "$mon_pid" 2>/dev/null || errs+="rclink -j monitor exited: $(cat "$tmp/mon"); "
out=$(t dev set dev "$A" retry_timer 200 retry_cnt 3) || errs+="$out; "
out=$(t qp add dev "$A" qpn $QP dqpn $QP dip "$RCL_T1_IP_B" dmac "$RCL_T1_MAC_B") || errs+="$out; "
out=$(t qp add dev "$B" qpn $QP dqpn $QP dip "$RCL_T1_IP_A" dmac "$RCL_T1_MAC_A") || errs+="$out; "
ktap_result setup "$([ -z "$errs" ]; echo $?)" "$errs"

# -- traffic before ---------------------------------------------------------------
SIZES=1,5000,65536
rcl_t1py chan "$B" $QP recv 3 $SIZES 0 20 >"$tmp/recv" 2>&1 &
rpid=$!
sleep 0.3
errs=""
out=$(rcl_t1py chan "$A" $QP send $SIZES 0 2>&1) || errs+="send: $out; "
wait $rpid || errs+="receive: $(cat "$tmp/recv"); "
ktap_result traffic_before "$([ -z "$errs" ]; echo $?)" "$errs"

# -- the cut ------------------------------------------------------------------
errs=""
out=$(rcl_wire "$A" loss=1000000 2>&1) || errs+="cutting the wire: $out; "
# a bound file: write, POLLERR, ECONNRESET, INFO state fatal, tx_flushed
out=$(rcl_t1py chan "$A" $QP fatal 20 2>&1) || errs+="$out; "
ktap_diag "bound file: $out"
ktap_result bound_file_econnreset "$([ -z "$errs" ]; echo $?)" "$errs"

errs=""
ev=$(mon_wait qp-fatal "$A" $QP) || errs+="no qp-fatal for $A qpn $QP from rclink -j monitor: $(cat "$tmp/mon"); "
ktap_diag "monitor: ${ev:-nothing}"
fpsn=$(rcl_json_get sq_psn <<<"$ev" 2>/dev/null)
[ -n "$fpsn" ] || errs+="qp-fatal without sq_psn: $ev; "
ktap_result monitor_qp_fatal "$([ -z "$errs" ]; echo $?)" "$errs"

errs=""
out=$(rcl_tool -j -s qp show dev "$A" qpn $QP 2>&1)
ktap_diag "$out"
st=$(rcl_json_get state <<<"$out" 2>&1)
[ "$st" = fatal ] || errs+="state '$st', want fatal; "
v=$(rcl_json_get fatal <<<"$out" 2>&1)
[ "${v:-0}" -ge 1 ] 2>/dev/null || errs+="stats fatal '$v', want >= 1; "
v=$(rcl_json_get tx_flushed <<<"$out" 2>&1)
[ "${v:-0}" -ge 1 ] 2>/dev/null || errs+="stats tx_flushed '$v', want >= 1; "
v=$(rcl_json_get timeouts <<<"$out" 2>&1)
[ "${v:-0}" -ge 1 ] 2>/dev/null || errs+="stats timeouts '$v', want >= 1; "
out=$(rcl_tool qp show dev "$A" qpn $QP 2>&1)
grep -qw fatal <<<"$out" || errs+="rclink qp show does not say fatal: $out; "
ktap_result qp_show_fatal "$([ -z "$errs" ]; echo $?)" "$errs"

# -- re-arm ----------------------------------------------------------------------
errs=""
out=$(rcl_wire "$A" off 2>&1) || errs+="restoring the wire: $out; "
out=$(t qp set dev "$A" qpn $QP state ready) || errs+="$out; "
if [ -n "$fpsn" ]; then
	npsn=$(((fpsn + 1) % (1 << ${EPSN_W:-12})))
	out=$(t qp set dev "$B" qpn $QP rq_psn "$npsn") || errs+="$out; "
	v=$(rcl_t1_qp_field "$A" $QP sq_psn)
	[ "$v" = "$npsn" ] || errs+="$A sq_psn '$v' after state ready, want $npsn (the recovery's $fpsn + 1); "
else
	errs+="no PSN from qp-fatal to re-arm the peer with; "
fi
v=$(rcl_t1_qp_field "$A" $QP state)
[ "$v" = ready ] || errs+="$A state '$v' after state ready; "
ktap_result rearm "$([ -z "$errs" ]; echo $?)" "$errs"

errs=""
ev=$(mon_wait qp-ready "$A" $QP) || errs+="no qp-ready for $A qpn $QP from rclink -j monitor: $(cat "$tmp/mon"); "
ktap_diag "monitor: ${ev:-nothing}"
ktap_result monitor_qp_ready "$([ -z "$errs" ]; echo $?)" "$errs"

# -- traffic after: byte-exact, the flushed message does not come ------------
errs=""
SIZES=7,1336,1337,40000
rcl_t1py chan "$B" $QP recv 4 $SIZES 100 20 >"$tmp/recv" 2>&1 &
rpid=$!
sleep 0.3
out=$(rcl_t1py chan "$A" $QP send $SIZES 100 2>&1) || errs+="send: $out; "
wait $rpid || errs+="receive: $(cat "$tmp/recv"); "
v=$(rcl_t1_qp_field "$A" $QP state)
[ "$v" = ready ] || errs+="$A state '$v' after the traffic; "
ktap_result traffic_after "$([ -z "$errs" ]; echo $?)" "$errs"

errs=""
kill -0 "$mon_pid" 2>/dev/null || errs+="rclink -j monitor died: $(cat "$tmp/mon"); "
"$RCL_PY" -S -c '
import json, sys
for n, line in enumerate(open(sys.argv[1]), 1):
    if line.strip():
        try:
            json.loads(line)
        except ValueError as e:
            print("monitor line %d not JSON (%s): %s" % (n, e, line.strip()))
            sys.exit(1)' "$tmp/mon" >"$tmp/monchk" 2>&1 || errs+="$(cat "$tmp/monchk"); "
ktap_result monitor_json_lines "$([ -z "$errs" ]; echo $?)" "$errs"

bad=$(rcl_kmsg_since "$mark" | rcl_splats)
ktap_result kernel_log_clean "$([ -z "$bad" ]; echo $?)" "$bad"
ktap_finish
