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
# RCLINK_T1_STALL (see t1_rdma.c).  Extra arguments go to the program
# (e.g. -t errors).

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

rcl_t1_run_prog "$bin" t1_rdma "$@"
