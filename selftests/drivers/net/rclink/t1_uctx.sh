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
# (see t1_uctx.c).  Extra arguments go to the program (e.g. -t messages).

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

export RCLINK_TOOL=$RCL_TOOL
export RCLINK_T1_A=$RCL_T1_A RCLINK_T1_B=$RCL_T1_B
export RCLINK_T1_IP_A=$RCL_T1_IP_A RCLINK_T1_IP_B=$RCL_T1_IP_B
export RCLINK_T1_MAC_A=$RCL_T1_MAC_A RCLINK_T1_MAC_B=$RCL_T1_MAC_B
export RCLINK_T1_QP_NUM=$RCL_T1_QP_NUM
mark=$(rcl_kmsg_mark t1_uctx)

# The program prints its own KTAP header.
"$bin" "$@" 2>&1 | sed -u '/^TAP version/d'
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
