#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# TYPE1 messages through /dev/rclinkN: runs the kselftest_harness program
# t1_msg (t1_msg.c, built on the host by `make selftests-build` into
# build/selftests/t1_msg; $RCLINK_T1_MSG_BIN names another) on the two
# boards picked as the other t1 tests do, and passes them to it in the
# environment.  Its KTAP is this test's output.  The boards get their
# IPv4 addresses here; whatever the program leaves behind (QPs, wire
# faults, configuration) is cleaned up here, and a QP left behind fails
# the test.
#
# Environment: RCLINK_TOOL, RCLINK_T1_DEVS="rclinkA rclinkB",
# RCLINK_T1_MSGS (messages per transfer, default 10000),
# RCLINK_T1_FAULT_MSGS (the transfer over the faulty wire, default
# RCLINK_T1_MSGS), RCLINK_T1_SEED, RCLINK_T1_STALL, RCLINK_T1_CHURN_QPS
# (see t1_msg.c), RCLINK_T1_MSG_ARGS (options of the program before the
# extra arguments, e.g. "-t one_qp -t ring_transfer": make check-rtl's
# subset).  Extra arguments go to the program (e.g. -t one_qp).

lib_dir=$(dirname "$0")/lib
# shellcheck source=lib/rclink_lib.sh
source "$lib_dir/rclink_lib.sh"

bin=${RCLINK_T1_MSG_BIN:-$RCL_TOP/build/selftests/t1_msg}
# an installed kselftest collection has it beside this script
[ -n "${RCLINK_T1_MSG_BIN:-}" ] || [ -x "$bin" ] || bin=$RCL_TESTDIR/t1_msg
if [ ! -x "$bin" ]; then
	ktap_header
	ktap_skip_all "no $bin (make selftests-build, or set RCLINK_T1_MSG_BIN)"
fi
rcl_t1_setup
rcl_t1_wire_used=1	# the program may have used the wire hooks

export RCLINK_TOOL=$RCL_TOOL
export RCLINK_T1_A=$RCL_T1_A RCLINK_T1_B=$RCL_T1_B
export RCLINK_T1_IP_A=$RCL_T1_IP_A RCLINK_T1_IP_B=$RCL_T1_IP_B
export RCLINK_T1_MAC_A=$RCL_T1_MAC_A RCLINK_T1_MAC_B=$RCL_T1_MAC_B
export RCLINK_T1_QP_NUM=$RCL_T1_QP_NUM
mark=$(rcl_kmsg_mark t1_msg)

# The program prints its own KTAP header.
# shellcheck disable=SC2086 # options, split
"$bin" ${RCLINK_T1_MSG_ARGS:-} "$@" 2>&1 | sed -u '/^TAP version/d'
rc=${PIPESTATUS[0]}

leaked=""
for side in A B; do
	q=$(rcl_t1_del_new_qps "$side" | tr '\n' ' ')
	[ -z "$q" ] || leaked+="$(rcl_t1_name $side): $q"
done
if [ -n "$leaked" ]; then
	ktap_diag "QPs left behind by $bin (deleted now): $leaked"
	[ "$rc" -eq 0 ] && rc=1
fi
bad=$(rcl_kmsg_since "$mark" | rcl_splats)
if [ -n "$bad" ]; then
	ktap_diag "kernel log: $bad"
	if [ "$rc" -eq 0 ] || [ "$rc" -eq 4 ]; then
		rc=1
	fi
fi
exit "$rc"
