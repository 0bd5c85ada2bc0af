#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-hub: multi_board.sh, t2_hub.py and t1_cc_fair.py in a 6.12
# guest with $RCLINK_HUB_BOARDS (default 8) boards on one QEMU hub.  KTAP in build/check-hub/; ends with
# "N passed, N failed".  RCLINK_HUB_KERNEL picks another kernel release.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cache=${RCLINK_CACHE:-$HOME/.cache/rclink}
out=$top/build/check-hub
cd "$top" || exit 1
rm -rf "$out"
mkdir -p "$out"
# shellcheck disable=SC1091
. "$cache/kernels.env"
krel=${RCLINK_HUB_KERNEL:-$KREL_612}
qemu=$(firmware/qemu/build.sh | tail -n 1) || exit 1
make -s modules tools >"$out/build.log" 2>&1 || { cat "$out/build.log"; exit 1; }

qargs=()
while IFS= read -r a; do
	qargs+=(--qemu-arg "$a")
done < <(selftests/vm/boards.sh hub)
echo "# guest $krel: ${RCLINK_HUB_BOARDS:-8} boards on one hub"
selftests/vm/run-guest.sh --kernel "$krel" --qemu "$qemu" --mem 3G \
	--timeout "${RCLINK_GUEST_TIMEOUT:-1800}" --results "$out/guest" \
	--append "iomem=relaxed loglevel=3" "${qargs[@]}" -- \
	selftests/drivers/net/rclink/run_all.sh multi_board.sh t2_hub.py t1_cc_fair.py \
	>"$out/run.log" 2>&1
echo "# guest $krel: exit $?"
sed -n '/^TAP version/,$p' "$out/run.log" | tr -d '\r' >"$out/hub.ktap"
cat "$out/hub.ktap"
/usr/bin/python3 selftests/vm/ktap-summary.py "$out/hub.ktap"
