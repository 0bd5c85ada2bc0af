#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: boot one guest (the 6.12 kernel) with three NIC pairs, each
# pair wired back to back through a QEMU hub of its own -- the rclink
# boards (TYPE1 queue pairs and the TYPE3 netdev), two e1000e, two
# virtio-net-pci -- and the rclink-insn TCG plugin loaded, and run
# tools/bench/bench-guest.sh in it: TCP throughput and ping latency per
# pair; TYPE1 messages through write/read and the rings, rdma_rxe RC SEND
# over the rclink netdevs and UDP over virtio-net (messages/s, latency,
# guest instructions per message); 1024 QPs at once.  Results in
# build/bench/ (bench.txt, run.log, console.log, insn.log).  Performance is
# measured here only, never asserted in a test.
#
# Environment: RCLINK_CACHE, RCLINK_BENCH_KREL (default KREL_612 of
# kernels.env), RCLINK_BENCH_QEMU (a QEMU binary to use instead of
# building one), RCLINK_BENCH_PLUGIN=0 (no instruction counts),
# BENCH_INSN_MODE (tb or insn, the plugin's counting; default tb),
# BENCH_PROFILE=1 (also a kernel profile of the ring path: slower;
# BENCH_PROFILE_PATH=uctx profiles the contexts' path instead), and,
# passed to the guest: BENCH_SECONDS, BENCH_PINGS, BENCH_SIZES, BENCH_MSGS,
# BENCH_RTTS, BENCH_UDP_SECS, BENCH_QPS, BENCH_RDMA_SIZES, BENCH_RDMA_OPS
# (see bench-guest.sh); BENCH_CC=0
# leaves out the congestion-control figures (a second guest: three boards
# on a hub, t1_cc_fair.py for BENCH_CC_SECONDS per case, default 20).
set -uo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cache=${RCLINK_CACHE:-$HOME/.cache/rclink}
out=$top/build/bench
cd "$top" || exit 1

# shellcheck disable=SC1091
. "$cache/kernels.env"
krel=${RCLINK_BENCH_KREL:-$KREL_612}

if [ -n "${RCLINK_BENCH_QEMU:-}" ]; then
	qemu=$RCLINK_BENCH_QEMU
else
	qemu=$(firmware/qemu/build.sh | tail -n 1) || {
		echo "bench: QEMU build failed" >&2
		exit 1
	}
fi
make -s modules >/dev/null || {
	echo "bench: module build failed" >&2
	exit 1
}
tools/bench/deps.sh || echo "bench: warning: installing the bench packages failed" >&2
make -s tools bench-tools >/dev/null || {
	echo "bench: building the tools and the plugin failed" >&2
	exit 1
}

rm -rf "$out"
mkdir -p "$out"
# shellcheck disable=SC2054 # QEMU options are comma separated
qargs=(
	-netdev hubport,id=w0,hubid=0
	-netdev hubport,id=w1,hubid=0
	-device rclink,netdev=w0,mac=02:52:43:00:00:01
	-device rclink,netdev=w1,mac=02:52:43:00:00:02
	-netdev hubport,id=e0,hubid=1
	-netdev hubport,id=e1,hubid=1
	-device e1000e,netdev=e0,romfile=,mac=02:45:31:00:00:01
	-device e1000e,netdev=e1,romfile=,mac=02:45:31:00:00:02
	-netdev hubport,id=v0,hubid=2
	-netdev hubport,id=v1,hubid=2
	-device virtio-net-pci,netdev=v0,romfile=,mac=02:56:49:00:00:01
	-device virtio-net-pci,netdev=v1,romfile=,mac=02:56:49:00:00:02
)
insn_log="" prof_log=""
if [ "${RCLINK_BENCH_PLUGIN:-1}" != 0 ]; then
	insn_log=$out/insn.log
	: >"$insn_log"
	popt=""
	if [ "${BENCH_PROFILE:-0}" = 1 ]; then
		prof_log=$out/profile.log
		: >"$prof_log"
		popt=",profile=$prof_log"
	fi
	qargs+=(-plugin "$top/build/bench-plugin/rclink-insn.so,out=$insn_log,mode=${BENCH_INSN_MODE:-tb}$popt")
fi
args=()
for a in "${qargs[@]}"; do
	args+=(--qemu-arg "$a")
done
secs=${BENCH_SECONDS:-10}
pings=${BENCH_PINGS:-100}
echo "bench: booting $krel with the rclink, e1000e and virtio-net pairs"
genv=(BENCH_SECONDS="$secs" BENCH_PINGS="$pings" RCLINK_INSN_LOG="$insn_log"
	RCLINK_INSN_PROFILE="$prof_log")
for v in BENCH_SIZES BENCH_MSGS BENCH_RTTS BENCH_UDP_SECS BENCH_QPS \
	BENCH_RDMA_SIZES BENCH_RDMA_OPS BENCH_PROFILE_PATH; do
	[ -n "${!v:-}" ] && genv+=("$v=${!v}")
done
# iomem=relaxed: the rxe part rewrites one classifier register of BAR0
selftests/vm/run-guest.sh --kernel "$krel" --qemu "$qemu" --timeout 1800 \
	--append "iomem=relaxed loglevel=3" "${args[@]}" --results "$out" -- \
	env "${genv[@]}" tools/bench/bench-guest.sh >"$out/run.log" 2>&1
rc=$?
grep '^bench: ' "$out/run.log" >&2
if [ ! -s "$out/bench.txt" ]; then
	tail -n 30 "$out/run.log"
	echo "bench: no results (guest exit $rc)" >&2
	exit 1
fi
# The congestion-control loop on three boards of a hub (t1_cc_fair.py):
# what two DCQCN senders get of a congested port, for longer than the test
if [ "${BENCH_CC:-1}" != 0 ]; then
	echo "bench: two DCQCN senders into one port (t1_cc_fair.py, 3 boards)" >&2
	RCLINK_TESTS_OUT=$out/cc-fair RCLINK_BOARDS=hub RCLINK_HUB_BOARDS=3 \
		selftests/vm/run-tests.sh \
		"RCLINK_CC_FAIR_SECONDS=${BENCH_CC_SECONDS:-20}" t1_cc_fair.py \
		>"$out/cc-fair.log" 2>&1
	{
		echo
		echo "congestion control: two dcqcn senders into one congested port"
		echo "(t1_cc_fair.py, ${BENCH_CC_SECONDS:-20} s per case; second-half rates)"
		grep -E 'sender [01]:|port [0-9]+ Mbit/s|second half:|^ *(not )?ok [0-9]' \
			"$out/cc-fair.log" | sed 's/^ *# */  /'
	} >>"$out/bench.txt"
fi
cat "$out/bench.txt"
exit "$rc"
