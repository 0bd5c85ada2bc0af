#!/bin/bash
# make check: host-side tests, then the kselftests in a guest for each
# Debian kernel (6.1 and 6.12) against the QEMU board model, and with
# RCLINK_CHECK_DEBUG=1 in a guest of the debug kernel when it is cached
# (selftests/vm/debug-kernel.sh path: 1.5-2 hours more, so not by
# default; make check-debug runs only that).  Every part prints KTAP into
# build/check/; the summary ends with "N passed, N failed".
#
# usage: run-check.sh [--debug | --iommu | --long]
#
#   --debug   make check-debug: only the debug kernel's guest (the kernel
#             must be built: make debug-kernel), any kernel splat or
#             kmemleak report fails; KTAP into build/check-debug/
#   --iommu   make check-iommu: only a 6.12 guest behind an emulated Intel
#             IOMMU in strict mode; any DMA remapping fault or DMA error of
#             the board model fails, and a negative test checks that an
#             unmapped DMA does fault; KTAP into build/check-iommu/
#   --long    make check-long: only the long robustness programs (the
#             lying board, fuzzing, life cycles, the CC loop), which make
#             check leaves out to stay within 30 minutes, in a guest of
#             the newest kernel, and the eight boards on one hub in a
#             guest of their own, the shim RTL's synthesis and its
#             word-level bench (rtl.sh synth sim); KTAP into
#             build/check-long/
#
# RCLINK_CHECK_TESTS (with --debug or --iommu): only these programs of the
# suite, e.g. to rerun on the slow debug kernel what changed or failed.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${RCLINK_CACHE:-$HOME/.cache/rclink}
mode=all
case ${1:-} in
"") ;;
--debug) mode=debug ;;
--iommu) mode=iommu ;;
--long) mode=long ;;
*) echo "usage: $0 [--debug | --iommu | --long]" >&2; exit 2 ;;
esac
case $mode in
all) out=$top/build/check ;;
*) out=$top/build/check-$mode ;;
esac
py=/usr/bin/python3
rm -rf "$out"
mkdir -p "$out"
cd "$top" || exit 1

# shellcheck disable=SC1091
. "$cache/kernels.env"
kernels=${RCLINK_KERNELS:-"$KREL_61 $KREL_612"}
# The programs of the debug and vIOMMU guests (empty: the whole suite);
# pci_faults.py runs in a debug guest of its own.
only=()
[ "$mode" = all ] || read -r -a only <<<"${RCLINK_CHECK_TESTS:-}"
only_main=()
only_faults=0
for p in "${only[@]}"; do
	if [ "$p" = pci_faults.py ]; then
		only_faults=1
	else
		only_main+=("$p")
	fi
done

# ---- host ------------------------------------------------------------------
[ "$mode" = all ] && {
	echo "TAP version 13"
	echo "1..9"
	if "$py" firmware/regs/gen.py --check >"$out/gen.log" 2>&1; then
		echo "ok 1 generated_files_fresh"
	else
		sed 's/^/# /' "$out/gen.log"
		echo "not ok 1 generated_files_fresh"
	fi
	if gcc -Wall -Wextra -Werror -Iinclude -o "$out/hw_contract_test" \
		selftests/host/hw_contract_test.c >"$out/cc.log" 2>&1; then
		"$out/hw_contract_test" >"$out/hw_contract.ktap"
		rc=$?
		sed 's/^/  /' "$out/hw_contract.ktap"
	else
		sed 's/^/# /' "$out/cc.log"
		rc=1
	fi
	if [ $rc -eq 0 ]; then
		echo "ok 2 hw_contract"
	else
		echo "not ok 2 hw_contract"
	fi
	# The netdev CI gates: W=1 C=1 builds for both kernels, checkpatch.
	if make -s module-check >"$out/module-check.log" 2>&1; then
		echo "ok 3 module_check"
	else
		sed 's/^/# /' "$out/module-check.log"
		echo "not ok 3 module_check"
	fi
	mapfile -t scripts < <(git ls-files '*.sh' .ci/run)
	if shellcheck -x -P SCRIPTDIR "${scripts[@]}" >"$out/shellcheck.log" 2>&1; then
		echo "ok 4 shellcheck"
	else
		sed 's/^/# /' "$out/shellcheck.log"
		echo "not ok 4 shellcheck"
	fi
	# uapi/linux/rclink_nl.h, drivers/rclink/rclink_nl_gen.[ch] (YNL)
	if tools/net/gen-nl.sh --check >"$out/nl-gen.log" 2>&1; then
		echo "ok 5 generated netlink code fresh"
	else
		sed 's/^/# /' "$out/nl-gen.log"
		echo "not ok 5 generated netlink code fresh"
	fi
	# rclink(8) against the tool's usage text
	if "$py" selftests/host/rclink_man_check.py >"$out/man.ktap" 2>&1; then
		echo "ok 6 rclink_man_page"
	else
		sed 's/^/# /' "$out/man.ktap"
		echo "not ok 6 rclink_man_page"
	fi
	# the wire decoders and tools/wireshark/rclink.lua on built frames
	if { "$py" selftests/drivers/net/rclink/t1_wire.py --selftest &&
		"$py" selftests/drivers/net/rclink/t1_formats.py --selftest; } \
		>"$out/decoders.log" 2>&1; then
		echo "ok 7 wire_decoders"
	else
		sed 's/^/# /' "$out/decoders.log"
		echo "not ok 7 wire_decoders"
	fi
	# the uAPI: a free ioctl magic, growable ioctl structs, English only
	if "$py" selftests/host/uapi_check.py >"$out/uapi.ktap" 2>&1; then
		echo "ok 8 uapi_rules"
	else
		sed 's/^/# /' "$out/uapi.ktap"
		echo "not ok 8 uapi_rules"
	fi
	# the driver's layers: BAR0 in rclink_regs only, calls go down
	if "$py" selftests/host/layers.py >"$out/layers.ktap" 2>&1; then
		echo "ok 9 driver_layers"
	else
		sed 's/^/# /' "$out/layers.ktap"
		echo "not ok 9 driver_layers"
	fi
} >"$out/host.ktap"
[ "$mode" = all ] && cat "$out/host.ktap"

# ---- shim RTL: lint, the vector list's check, the word-level bench's
# replay of the vectors the short cocotb run leaves out (cocotb_long),
# the short cocotb run of both tops (every other vector the RTL has
# through the UltraScale+ top); in make check-long the word-level
# bench's replay of every vector (rtl.sh sim: its Verilog stand-ins,
# about 3 minutes) and
# yosys synthesis of the UltraScale+ top for the family (about 20
# minutes; make rtl-synth adds the P-tile top's generic synthesis, some
# 15 minutes more) -------------------------------------------------------------
rtl_parts=""
[ "$mode" = all ] && rtl_parts="lint sim-short cocotb"
[ "$mode" = long ] && rtl_parts="sim synth"
if [ -n "$rtl_parts" ]; then
	# shellcheck disable=SC2086 # a list of parts
	RCLINK_COCOTB_SHORT=1 RCLINK_BUILD=$out \
		firmware/rtl/rtl.sh $rtl_parts >"$out/rtl.txt" 2>&1
	{
		echo "TAP version 13"
		echo "1..$(grep -cE '^(not )?ok ' "$out/rtl.txt")"
		cat "$out/rtl.txt"
	} >"$out/rtl.ktap"
	cat "$out/rtl.ktap"
fi

# ---- builds ----------------------------------------------------------------
qemu=$(firmware/qemu/build.sh | tail -n 1) || {
	echo "not ok 1 qemu_build" | tee "$out/build.ktap"
	"$py" selftests/vm/ktap-summary.py "$out"/*.ktap
	exit 1
}
if ! make -s modules tools >"$out/modules.log" 2>&1; then
	cat "$out/modules.log"
	echo "not ok 1 module_build" | tee "$out/build.ktap"
	"$py" selftests/vm/ktap-summary.py "$out"/*.ktap
	exit 1
fi
# The C selftests (build/selftests/t1_msg), run by their wrappers in the guests.
if ! make -s selftests-build >"$out/selftests-build.log" 2>&1; then
	cat "$out/selftests-build.log"
	echo "not ok 1 selftests_build" | tee "$out/build.ktap"
	"$py" selftests/vm/ktap-summary.py "$out"/*.ktap
	exit 1
fi

# The debug kernel (built by make debug-kernel; never built here).
dkdir="" dkrel=""
if [ "$mode" = debug ] || { [ "$mode" = all ] && [ "${RCLINK_CHECK_DEBUG:-0}" != 0 ]; }; then
	dkdir=$(selftests/vm/debug-kernel.sh path) || dkdir=""
	if [ -n "$dkdir" ]; then
		dkrel=$(cat "$dkdir/krel")
		if ! make -s modules RCLINK_KRELS="$dkrel" \
			"RCLINK_KDIR_$dkrel=$dkdir/build" >"$out/modules-debug.log" 2>&1; then
			cat "$out/modules-debug.log"
			echo "not ok 1 debug_module_build" | tee "$out/build-debug.ktap"
			dkdir=""
		fi
	elif [ "$mode" = debug ]; then
		echo "not ok 1 debug_kernel # not built: make debug-kernel" |
			tee "$out/build.ktap"
		"$py" selftests/vm/ktap-summary.py "$out"/*.ktap
		exit 1
	fi
fi

# ---- guests ----------------------------------------------------------------
# guest NAME KREL [run-guest.sh options] -- COMMAND...: the suite in one
# guest with the board set of boards.sh check; results in $out/NAME/, its
# KTAP in $out/NAME.ktap
guest() {
	local name=$1 krel=$2 res=$out/$1 a
	shift 2
	local qargs=()
	mkdir -p "$res"
	while IFS= read -r a; do
		qargs+=(--qemu-arg "$a")
	done < <(selftests/vm/boards.sh "${BOARDS:-check}" "$res")
	local opts=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		opts+=("$1")
		shift
	done
	shift
	echo "# $name: booting"
	local t0=$SECONDS rc
	selftests/vm/run-guest.sh --kernel "$krel" --qemu "$qemu" \
		--results "$res" "${opts[@]}" "${qargs[@]}" -- "$@" \
		>"$res/run.log" 2>&1
	rc=$?
	echo "# $name: exit $rc after $((SECONDS - t0)) s"
	# The KTAP of the run, without the console noise around it.
	sed -n '/^TAP version/,$p' "$res/run.log" | tr -d '\r' >"$out/$name.ktap"
	# A guest that failed without reporting a failure (it did not boot,
	# QEMU did not start, the suite died) is one: counted, with its reason.
	if [ "$rc" -ne 0 ] && ! grep -q '^not ok' "$out/$name.ktap"; then
		local head="" why
		[ -s "$out/$name.ktap" ] || head=$'TAP version 13\n1..1\n'
		why=$(grep -v '^$' "$res/run.log" | tail -n 1 | tr -d '\r')
		printf '%snot ok 1 %s # guest exit %d: %s\n' "$head" "$name" \
			"$rc" "$why" >>"$out/$name.ktap"
	fi
	cat "$out/$name.ktap"
}
suite=selftests/drivers/net/rclink/run_all.sh

# The long robustness tests (the lying board, fuzzing, life cycles, the CC
# loop) have a target of their own, make check-long (a guest of the newest
# kernel), to keep make check within 30 minutes; so have five programs of
# the newest kernel's guest that take 26 to 57 s each (the interrupt
# codes' decoding, the header formats, the TYPE3 link, the TYPE3 path's
# DMA faults, a QP's fatal error: they ran in that guest only, so no
# kernel loses them); RCLINK_LONG_TESTS_ALL=1 runs them in every guest of
# make check instead.
long_tests="hostile.py fuzz.sh cycles.sh t1_cc.py irq_decode.py t1_formats.py
	t3_link.sh t3_faults.py t1_fatal.sh"
# Programs that exercise no code that differs between kernel versions
# (rclink_compat.h: interrupts, devlink, page pool, ethtool, dcb, the char
# device's mmap, the events group): the board's TYPE1 engine, header
# formats, rates and arbitration, the event decoding, CBFC, TYPE2 through
# read/write, RDMA WRITE and READ (t1_uctx keeps the contexts' mmap in
# every guest), a QP's fatal error (t1_qp keeps the monitor's multicast
# group in every guest), the TYPE3 path's DMA faults and their devlink
# health reports (devlink.sh keeps devlink in every guest), the carrier
# and tcpdump of the TYPE3 netdev (t3_ping, t3_tcp and t3_ethtool keep
# its data path and ethtool in every guest).
# They run in the newest kernel's guest only; RCLINK_ALL_KERNELS=1 runs
# them in every guest.
newest_only="vectors.py assumed.py irq_decode.py t1_model.py t1_ctx.py
	t1_wire.py t1_formats.py t1_rate.py t1_arb.py t1_pfc.py t1_cbfc.py
	t2_mcast.py t1_rdma.sh t3_link.sh t3_tcpdump.sh t1_fatal.sh t3_faults.py"
newest=""
for krel in $kernels; do
	newest=$krel
done
[ "$mode" = all ] && for krel in $kernels; do
	skip=""
	[ "${RCLINK_LONG_TESTS_ALL:-0}" = 0 ] && skip=$long_tests
	[ "$krel" != "$newest" ] && [ "${RCLINK_ALL_KERNELS:-0}" = 0 ] &&
		skip="$skip $newest_only"
	guest "guest-$krel" "$krel" --timeout "${RCLINK_GUEST_TIMEOUT:-3600}" \
		--append "iomem=relaxed loglevel=3" -- \
		env RCLINK_SKIP_TESTS="$skip pci_faults.py" "$suite"
done
# shellcheck disable=SC2086 # a list of program names
[ "$mode" = long ] && guest "long-$newest" "$newest" \
	--timeout "${RCLINK_GUEST_TIMEOUT:-3600}" \
	--append "iomem=relaxed loglevel=3" -- "$suite" $long_tests
# PCI faults need the boards behind root ports (AER): a guest of their own,
# whose 9p root survives system sleep (pci_faults.py system_sleep); there
# t1_uctx's aer_busy too (an AER recovery with a user context busy), which
# skips in the other guests (no root port)
[ "$mode" = all ] && BOARDS=faults guest "faults-$newest" "$newest" \
	--timeout "${RCLINK_GUEST_TIMEOUT:-3600}" --sleep-safe \
	--append "iomem=relaxed loglevel=3" -- \
	env RCLINK_T1_UCTX_ARGS="-t aer_busy" "$suite" pci_faults.py t1_uctx.sh

# The RTL board of the co-simulation wired to a model board (boards.sh
# rtl-pair: the Verilated shim core behind the QEMU device, its IP side
# bridged into the model's IP and wire): probe, registers and the shared
# vectors against the RTL, one TYPE1 exchange each way between it and
# the model board, TYPE3 pings both ways at MTU 1500, an FLR of the RTL
# board (rclink0, probed first) with messages in flight, and RDMA WRITE
# and READ from the RTL board's requester (A) to the model board (B;
# make check-rtl runs the RTL board as the responder too), the short
# subset of make check-rtl
# (Documentation/testing.rst, "RTL boards")
[ "$mode" = all ] && BOARDS=rtl-pair guest "rtl-$newest" "$newest" \
	--timeout "${RCLINK_GUEST_TIMEOUT:-3600}" \
	--append "iomem=relaxed loglevel=3" -- \
	env RCLINK_RTL_DEVS=0000:00:10.0 RCLINK_T1_MSGS=100 \
	RCLINK_T1_DEVS="rclink0 rclink1" \
	RCLINK_T1_MSG_ARGS="-t one_qp -t one_qp_back" RCLINK_T3_MTUS=1500 \
	RCLINK_PCI_FAULTS_CASES=flr "$suite" probe.py regs.py vectors.py \
	t1_msg.sh t1_rdma.sh t3_ping.sh pci_faults.py

# Eight boards on one hub (a switch that floods): TYPE3 and TYPE1 between
# every pair, TYPE2 to the members of a group, two TYPE1 senders with the
# CC loop into one receiver (about two and a half minutes): make check-long
[ "$mode" = long ] && BOARDS=hub RCLINK_HUB_BOARDS=8 guest "hub-$newest" \
	"$newest" --timeout "${RCLINK_GUEST_TIMEOUT:-3600}" --mem 3G \
	--append "iomem=relaxed loglevel=3" -- "$suite" multi_board.sh t2_hub.py \
	t1_cc_fair.py

# The debug kernel: KASAN, lockdep, kmemleak, UBSAN, DEBUG_NET.  Everything
# is several times slower there: the asynchronous waits of the tests get
# more time, the TYPE1 transfers fewer messages, cycles.sh does 10
# cycles of each kind, not 50 (about 35 s per module reload there; the
# point is the splats), and rebind.sh 10 unbind/bind cycles, not 100
# (100 took more than its 1200 s there).
# Within make check the long robustness tests are left out (as in the older
# kernel's guest); make check-debug runs them.
# debug_guest NAME SPLATS TITLE [VAR=VALUE...] PROGRAM...: programs in a
# guest of the debug kernel, then its splat check into $out/SPLATS.ktap
debug_guest() {
	local name=$1 splats=$2 title=$3
	shift 3
	guest "$name" "$dkrel" --kernel-image "$dkdir/vmlinuz" \
		--moddir "$dkdir/modroot/lib/modules/$dkrel" --mem 3G \
		--timeout "${RCLINK_DEBUG_GUEST_TIMEOUT:-7200}" --sleep-safe \
		--append "iomem=relaxed loglevel=3" -- \
		selftests/vm/guest-watch.sh -- \
		env RCLINK_TEST_TIMEOUT="${RCLINK_DEBUG_TEST_TIMEOUT:-30}" \
		RCLINK_T1_MSGS="${RCLINK_DEBUG_T1_MSGS:-2000}" \
		RCLINK_CYCLES="${RCLINK_DEBUG_CYCLES:-10}" \
		RCLINK_REBIND_CYCLES="${RCLINK_DEBUG_CYCLES:-10}" "$@"
	"$py" selftests/vm/splat-check.py --kmemleak --name "$title" \
		"$out/$name" | tee "$out/$splats.ktap"
}
if [ -n "$dkdir" ] && { [ ${#only[@]} -eq 0 ] || [ ${#only_main[@]} -gt 0 ]; }; then
	skip=""
	[ "$mode" = all ] && [ "${RCLINK_LONG_TESTS_ALL:-0}" = 0 ] &&
		skip=$long_tests
	debug_guest guest-debug splats-debug \
		"kernel splats of the debug kernel $dkrel" \
		RCLINK_SKIP_TESTS="$skip pci_faults.py" "$suite" "${only_main[@]}"
fi
# PCI faults with the boards behind root ports, as in make check
if [ -n "$dkdir" ] && { [ ${#only[@]} -eq 0 ] || [ $only_faults = 1 ]; }; then
	BOARDS=faults debug_guest faults-debug splats-faults-debug \
		"kernel splats of the debug kernel $dkrel, PCI faults" \
		"$suite" pci_faults.py
fi

# The vIOMMU: an emulated Intel IOMMU (translating the boards' DMA: it comes
# before them on the command line) in strict mode, no passthrough.
if [ "$mode" = iommu ]; then
	guest guest-iommu "$KREL_612" \
		--timeout "${RCLINK_GUEST_TIMEOUT:-3600}" \
		--qemu-arg -device --qemu-arg intel-iommu,intremap=on,caching-mode=on \
		--qemu-arg -d --qemu-arg guest_errors \
		--qemu-arg -D --qemu-arg "$out/guest-iommu/qemu.log" \
		--append "iomem=relaxed loglevel=3 intel_iommu=on iommu.strict=1" \
		--append "iommu.passthrough=0" -- \
		selftests/vm/guest-watch.sh --iommu-fault-test -- "$suite" \
		"${only[@]}"
	"$py" selftests/vm/splat-check.py --dma --name \
		"kernel splats and DMA faults behind the vIOMMU" \
		"$out/guest-iommu" | tee "$out/splats-iommu.ktap"
fi

"$py" selftests/vm/ktap-summary.py "$out"/*.ktap
