#!/bin/bash
# Run some of the kselftests in one guest: the board set of make check, a
# Debian kernel (RCLINK_KREL, default the 6.12 one of kernels.env), the
# tests named (programs of selftests/drivers/net/rclink), with the
# environment given as NAME=VALUE words first.  Prints the KTAP and the
# "N passed, N failed" line; results in build/tests/ (or $RCLINK_TESTS_OUT).
#
# usage: run-tests.sh [NAME=VALUE...] TEST...
#   e.g. run-tests.sh RCLINK_FUZZ_N=100000 fuzz.sh      (make fuzz)
# RCLINK_BOARDS picks another set of boards.sh (faults and rtl-faults for
# pci_faults.py, whose guest also gets run-guest.sh --sleep-safe; rtl for
# the RTL board of the co-simulation, whose tests get RCLINK_RTL_DEVS=all).
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cache=${RCLINK_CACHE:-$HOME/.cache/rclink}
out=${RCLINK_TESTS_OUT:-$top/build/tests}
py=/usr/bin/python3
cd "$top" || exit 1

envs=()
while [ $# -gt 0 ] && [[ $1 == *=* ]]; do
	envs+=("$1")
	shift
done
[ $# -gt 0 ] || { echo "usage: $0 [NAME=VALUE...] TEST..." >&2; exit 2; }
# the rtl and rtl-irq sets: every board is an RTL board (lib/rclinktest.py
# is_rtl)
case ${RCLINK_BOARDS:-check} in
rtl | rtl-irq) envs+=(RCLINK_RTL_DEVS=all) ;;
esac
# rtl-pair: the RTL board is at 00:10.0, rtl-rtl: both (boards.sh)
[ "${RCLINK_BOARDS:-check}" = rtl-pair ] && envs+=(RCLINK_RTL_DEVS=0000:00:10.0)
# rtl-faults: its RTL board is the first device behind a root port, after
# the two of run-guest.sh --sleep-safe (buses 1 and 2)
[ "${RCLINK_BOARDS:-check}" = rtl-faults ] && envs+=(RCLINK_RTL_DEVS=0000:03:00.0)
[ "${RCLINK_BOARDS:-check}" = rtl-rtl ] &&
	envs+=("RCLINK_RTL_DEVS=0000:00:10.0 0000:00:11.0")

# shellcheck disable=SC1091
. "$cache/kernels.env"
krel=${RCLINK_KREL:-$KREL_612}
qemu=$(firmware/qemu/build.sh | tail -n 1) || exit 1
make -s modules tools selftests-build >/dev/null || exit 1
rm -rf "$out"
mkdir -p "$out"
qargs=()
while IFS= read -r a; do
	qargs+=(--qemu-arg "$a")
done < <(selftests/vm/boards.sh "${RCLINK_BOARDS:-check}" "$out")
gopts=()
case ${RCLINK_BOARDS:-check} in
faults | rtl-faults) gopts=(--sleep-safe) ;;
esac
selftests/vm/run-guest.sh --kernel "$krel" --qemu "$qemu" \
	--timeout "${RCLINK_GUEST_TIMEOUT:-3600}" --results "$out" \
	--append "iomem=relaxed loglevel=3" "${gopts[@]}" "${qargs[@]}" -- \
	env "${envs[@]}" selftests/drivers/net/rclink/run_all.sh "$@" \
	>"$out/run.log" 2>&1
sed -n '/^TAP version/,$p' "$out/run.log" | tr -d '\r' >"$out/guest-$krel.ktap"
cat "$out/guest-$krel.ktap"
"$py" selftests/vm/ktap-summary.py "$out/guest-$krel.ktap"
