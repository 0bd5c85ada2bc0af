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
# RCLINK_T1_MSGS), RCLINK_T1_BACK_MSGS (one_qp_back, B to A), RCLINK_T1_SEED,
# RCLINK_T1_STALL, RCLINK_T1_CHURN_QPS
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

# shellcheck disable=SC2086 # options, split
rcl_t1_run_prog "$bin" t1_msg ${RCLINK_T1_MSG_ARGS:-} "$@"
