#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Kernel-bypass contexts through /dev/rclinkN: runs the kselftest_harness
# program t1_uctx (t1_uctx.c, built on the host by `make selftests-build`
# into build/selftests/t1_uctx; $RCLINK_T1_UCTX_BIN names another) on the
# two boards picked as the other t1 tests do, and passes them to it in the
# environment.  Its KTAP is this test's output.  The boards get their
# IPv4 addresses here; whatever the program leaves behind (QPs) is cleaned
# up here, and a QP left behind fails the test.
#
# Environment: RCLINK_TOOL, RCLINK_T1_DEVS="rclinkA rclinkB",
# RCLINK_T1_UCTX_MSGS (messages each way, default 2000), RCLINK_T1_STALL
# (see t1_uctx.c), RCLINK_T1_UCTX_ARGS (options of the program before the
# extra arguments, e.g. "-t messages -t quiet": make check-rtl's subset).
# Extra arguments go to the program (e.g. -t messages).

lib_dir=$(dirname "$0")/lib
# shellcheck source=lib/rclink_lib.sh
source "$lib_dir/rclink_lib.sh"

bin=${RCLINK_T1_UCTX_BIN:-$RCL_TOP/build/selftests/t1_uctx}
# an installed kselftest collection has it beside this script
[ -n "${RCLINK_T1_UCTX_BIN:-}" ] || [ -x "$bin" ] || bin=$RCL_TESTDIR/t1_uctx
if [ ! -x "$bin" ]; then
	ktap_header
	ktap_skip_all "no $bin (make selftests-build, or set RCLINK_T1_UCTX_BIN)"
fi
rcl_t1_setup
# dead_busy: the board leaves the bus through the model's hostile mode
RCLINK_T1_HOSTILE="$(cd "$lib_dir" && pwd)/rclink_hostile.py"
export RCLINK_T1_HOSTILE
# rx_hold_*, exit_busy_qp: the boards' DMAQ_CTX_RX_HOLD and wire hooks
RCLINK_T1_LIB="$(cd "$lib_dir" && pwd)"
export RCLINK_T1_LIB

# shellcheck disable=SC2086 # RCLINK_T1_UCTX_ARGS is a list of options
rcl_t1_run_prog "$bin" t1_uctx ${RCLINK_T1_UCTX_ARGS:-} "$@"
