#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Random and malformed input: runs the kselftest_harness program fuzz
# (fuzz.c, built by `make selftests-build` into build/selftests/fuzz;
# $RCLINK_FUZZ_BIN names another) on the wired pair: generic netlink
# messages and /dev/rclinkN calls as root and as nobody, malformed frames
# from board A's netdev to board B.  QPs 1..4 exist on both boards while it
# runs.  Afterwards the configuration the netlink fuzzing changed is put
# back, QPs it made are deleted, and a message must still go A -> B
# byte-exact; the kernel log must have no splat.
#
# Environment: RCLINK_FUZZ_N (calls per test, default 2000; `make fuzz`
# runs 100000), RCLINK_FUZZ_FRAMES (default 20000; `make fuzz`: 100000),
# RCLINK_FUZZ_SEED, RCLINK_FUZZ_ARGS (options of the program before the
# script's own, e.g. "-t cdev_root -t cdev_user": only the character
# device's part, as make check-rtl runs it).

lib_dir=$(dirname "$0")/lib
# shellcheck source=lib/rclink_lib.sh
source "$lib_dir/rclink_lib.sh"

bin=${RCLINK_FUZZ_BIN:-$RCL_TOP/build/selftests/fuzz}
if [ ! -x "$bin" ]; then
	ktap_header
	ktap_skip_all "no $bin (make selftests-build, or set RCLINK_FUZZ_BIN)"
fi
rcl_t1_setup

for q in 1 2 3 4; do
	out=$(rcl_tool qp add dev "$RCL_T1_A" qpn $q dqpn $q dip "$RCL_T1_IP_B" dmac "$RCL_T1_MAC_B" 2>&1) ||
		rcl_t1_setup_fail "qp add $RCL_T1_A $q: $out"
	out=$(rcl_tool qp add dev "$RCL_T1_B" qpn $q dqpn $q dip "$RCL_T1_IP_A" dmac "$RCL_T1_MAC_A" 2>&1) ||
		rcl_t1_setup_fail "qp add $RCL_T1_B $q: $out"
done
bdf_a=$(rcl_t1_bdf "$RCL_T1_A")
if_a=""
for n in "/sys/bus/pci/devices/$bdf_a/net/"*; do
	[ -e "$n" ] && if_a=${n##*/}
done
[ -n "$if_a" ] && ip link set dev "$if_a" up 2>/dev/null

export RCLINK_T1_A=$RCL_T1_A RCLINK_T1_B=$RCL_T1_B
export RCLINK_T1_IP_A=$RCL_T1_IP_A RCLINK_T1_IP_B=$RCL_T1_IP_B
export RCLINK_T1_MAC_A=$RCL_T1_MAC_A RCLINK_T1_MAC_B=$RCL_T1_MAC_B
export RCLINK_IF_A=$if_a
mark=$(rcl_kmsg_mark fuzz)

# The program prints its own KTAP header.
# shellcheck disable=SC2086 # a list of options
"$bin" ${RCLINK_FUZZ_ARGS:-} "$@" 2>&1 | sed -u '/^TAP version/d'
rc=${PIPESTATUS[0]}

# Put back what the netlink fuzzing changed, then a message must get through.
for side in A B; do
	dev=$(rcl_t1_name $side)
	args=$(rcl_t1py restore-args "$RCL_T1_TMP/dev_$side.json" "$dev" 2>/dev/null)
	if [ -n "$args" ]; then
		# shellcheck disable=SC2086 # a list of arguments
		rcl_tool dev set dev "$dev" $args >/dev/null 2>&1 ||
			ktap_diag "restoring $dev ($args) failed"
	fi
	q=$(rcl_t1_del_new_qps "$side" | tr '\n' ' ')
	[ -n "$q" ] && ktap_diag "QPs deleted on $dev: $q"
done
if ! out=$(rcl_tool qp add dev "$RCL_T1_A" qpn 9 dqpn 9 dip "$RCL_T1_IP_B" dmac "$RCL_T1_MAC_B" 2>&1 &&
	rcl_tool qp add dev "$RCL_T1_B" qpn 9 dqpn 9 dip "$RCL_T1_IP_A" dmac "$RCL_T1_MAC_A" 2>&1); then
	ktap_diag "after fuzzing: qp add: $out"
	rc=1
else
	rcl_t1py chan "$RCL_T1_B" 9 recv 2 7,40000 0 20 >"$RCL_T1_TMP/recv" 2>&1 &
	rpid=$!
	sleep 0.3
	out=$(rcl_t1py chan "$RCL_T1_A" 9 send 7,40000 0 2>&1) || {
		ktap_diag "after fuzzing: send: $out"
		rc=1
	}
	wait $rpid || {
		ktap_diag "after fuzzing: receive: $(cat "$RCL_T1_TMP/recv")"
		for side in A B; do
			dev=$(rcl_t1_name $side)
			ktap_diag "$dev: $(rcl_tool -j dev show dev "$dev" 2>&1)"
			ktap_diag "$dev: $(rcl_tool -j -s qp show dev "$dev" qpn 9 2>&1)"
			ktap_diag "$dev: $(tr '\n' ' ' <"$RCL_DBG/$(rcl_t1_bdf "$dev")/t1")"
		done
		rc=1
	}
fi
bad=$(rcl_kmsg_since "$mark" | rcl_splats)
if [ -n "$bad" ]; then
	ktap_diag "kernel log: $bad"
	rc=1
fi
exit "$rc"
