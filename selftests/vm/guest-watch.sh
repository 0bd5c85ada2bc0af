#!/bin/bash
# Guest side of make check-debug and make check-iommu: run COMMAND (the
# selftests) with the kernel log streamed to the results dir, each test's
# start marked in the kernel log, and kmemleak asked for its findings at
# the end.  selftests/vm/splat-check.py reads what this leaves behind.
#
# usage: guest-watch.sh [--iommu-fault-test] -- COMMAND [ARG...]
#
# Runs in a guest of run-guest.sh, as root, with RCLINK_RESULTS set.
# Writes into $RCLINK_RESULTS:
#   dmesg.log          the kernel log from boot on (dmesg --follow)
#   kmemleak.log       /sys/kernel/debug/kmemleak after two scans (only with
#                      CONFIG_DEBUG_KMEMLEAK); kmemleak-boot.log what it
#                      reported before the tests (then cleared)
#   iommu-fault.ktap   with --iommu-fault-test: iommu-fault-test.py's KTAP
# The kernel log gets "rclink-check: test NAME" when run_all.sh starts
# program NAME, and "rclink-check: iommu-fault-test begin/end" around the
# negative test (the DMA faults it provokes are expected there; these two
# markers go to stdout as well).
# Exit status: COMMAND's.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
fault_test=""
while [ $# -gt 0 ]; do
	case $1 in
	--iommu-fault-test) fault_test=1; shift ;;
	--) shift; break ;;
	*) echo "usage: ${0##*/} [--iommu-fault-test] -- COMMAND [ARG...]" >&2; exit 2 ;;
	esac
done
[ $# -gt 0 ] || { echo "guest-watch: no COMMAND" >&2; exit 2; }
res=${RCLINK_RESULTS:?guest-watch: RCLINK_RESULTS not set}

kmark() { echo "rclink-check: $*" >/dev/kmsg 2>/dev/null || true; }
leak=/sys/kernel/debug/kmemleak

dmesg --follow --nopager >"$res/dmesg.log" 2>&1 &
follower=$!

# Leak reports from boot (kernel or firmware noise) are not the suite's:
# report them separately, then clear them.
if [ -w "$leak" ]; then
	echo scan >"$leak" 2>/dev/null
	cat "$leak" >"$res/kmemleak-boot.log" 2>/dev/null
	echo clear >"$leak" 2>/dev/null
fi

kmark "suite begin"
"$@" 2>&1 | while IFS= read -r line; do
	printf '%s\n' "$line"
	case $line in
	"# selftests: "*": "*) kmark "test ${line##*: }" ;;
	esac
done
rc=${PIPESTATUS[0]}
kmark "suite end rc=$rc"

if [ -n "$fault_test" ]; then
	# on the console too: QEMU reports the faults there
	echo "# rclink-check: iommu-fault-test begin"
	kmark "iommu-fault-test begin"
	/usr/bin/python3 "$here/iommu-fault-test.py" | tee "$res/iommu-fault.ktap"
	kmark "iommu-fault-test end"
	echo "# rclink-check: iommu-fault-test end"
fi

# Unloading the driver turns what it still holds into unreferenced objects.
if grep -q '^rclink ' /proc/modules; then
	kmark "test rmmod rclink"
	rmmod rclink || echo "guest-watch: rmmod rclink failed" >&2
fi
if [ -w "$leak" ]; then
	kmark "kmemleak scan"
	echo scan >"$leak"
	sleep 5
	echo scan >"$leak"
	cat "$leak" >"$res/kmemleak.log"
fi
kmark "done"
sleep 1
kill "$follower" 2>/dev/null
wait "$follower" 2>/dev/null
sync
exit "$rc"
