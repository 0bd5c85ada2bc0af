#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# One-sided RDMA WRITE and READ between kernel-bypass contexts: runs the
# kselftest_harness program t1_rdma (t1_rdma.c, built on the host by
# `make selftests-build` into build/selftests/t1_rdma; $RCLINK_T1_RDMA_BIN
# names another) on the two boards picked as the other t1 tests do, and
# passes them to it in the environment.  Its KTAP is this test's output.
# A QP the program leaves behind fails the test.
#
# Environment: RCLINK_TOOL, RCLINK_T1_DEVS="rclinkA rclinkB",
# RCLINK_T1_STALL (see t1_rdma.c), RCLINK_T1_RDMA_TIMEOUT_US: the boards'
# response timeout (DMAQ_RDMA_CFG.timeout_us) during the run, by default
# 2 s where a board is an RTL board of the co-simulation ($RCLINK_RTL_DEVS:
# its simulator runs far slower than the model's clock when the host is
# loaded, and 100 ms then ends WRITEs whose response is on its way), the
# boards' own otherwise.  Extra arguments go to the program (e.g. -t
# errors).

lib_dir=$(dirname "$0")/lib
# shellcheck source=lib/rclink_lib.sh
source "$lib_dir/rclink_lib.sh"

bin=${RCLINK_T1_RDMA_BIN:-$RCL_TOP/build/selftests/t1_rdma}
# an installed kselftest collection has it beside this script
[ -n "${RCLINK_T1_RDMA_BIN:-}" ] || [ -x "$bin" ] || bin=$RCL_TESTDIR/t1_rdma
if [ ! -x "$bin" ]; then
	ktap_header
	ktap_skip_all "no $bin (make selftests-build, or set RCLINK_T1_RDMA_BIN)"
fi
rcl_t1_setup

tmo=${RCLINK_T1_RDMA_TIMEOUT_US:-}
[ -z "$tmo" ] && [ -n "${RCLINK_RTL_DEVS:-}" ] && tmo=2000000
saved=()
# the boards' timeouts back, whatever happens (rcl_t1_cleanup runs it)
# shellcheck disable=SC2317 # called by the EXIT trap (rcl_t1_cleanup)
rdma_tmo_restore() {
	local i
	for ((i = 0; i + 1 < ${#saved[@]}; i += 2)); do
		rcl_py write "${saved[i]}" DMAQ_RDMA_CFG "${saved[i + 1]}" 2>/dev/null
	done
}
if [ -n "$tmo" ]; then
	rcl_t1_cleanup_hook=rdma_tmo_restore
	# through BAR0 (iomem=relaxed); where it cannot be written, the
	# program skips its cases all the same
	for dev in "$RCL_T1_A" "$RCL_T1_B"; do
		bdf=$(basename "$(readlink -f "/sys/class/rclink/$dev/device")")
		old=$(rcl_py read "$bdf" DMAQ_RDMA_CFG 2>/dev/null) || continue
		rcl_py write "$bdf" DMAQ_RDMA_CFG \
			$(((old & ~0xffffffff) | tmo)) 2>/dev/null &&
			saved+=("$bdf" "$old")
	done
fi

rcl_t1_run_prog "$bin" t1_rdma "$@"
