#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-install: the packages of `make deb` installed on a fresh 6.12
# guest with the board pair, the installed kselftests run through their
# run_kselftest.sh, the packages removed (selftests/vm/install-guest.sh).
# KTAP in build/check-install/; ends with "N passed, N failed".
# RCLINK_INSTALL_KERNEL picks another kernel release.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cache=${RCLINK_CACHE:-$HOME/.cache/rclink}
out=$top/build/check-install
cd "$top" || exit 1
rm -rf "$out"
mkdir -p "$out"
# shellcheck disable=SC1091
. "$cache/kernels.env"
krel=${RCLINK_INSTALL_KERNEL:-$KREL_612}
qemu=$(firmware/qemu/build.sh | tail -n 1) || exit 1

qargs=()
while IFS= read -r a; do
	qargs+=(--qemu-arg "$a")
done < <(selftests/vm/boards.sh pair)
echo "# guest $krel: installing the packages"
selftests/vm/run-guest.sh --kernel "$krel" --qemu "$qemu" \
	--timeout "${RCLINK_GUEST_TIMEOUT:-2400}" --results "$out/guest" \
	--append "iomem=relaxed loglevel=3" "${qargs[@]}" -- \
	env RCLINK_INSTALL_TESTS="${RCLINK_INSTALL_TESTS:-}" \
	selftests/vm/install-guest.sh >"$out/run.log" 2>&1
echo "# guest $krel: exit $?"
sed -n '/^TAP version/,$p' "$out/run.log" | tr -d '\r' >"$out/install.ktap"
cat "$out/install.ktap"
/usr/bin/python3 selftests/vm/ktap-summary.py "$out/install.ktap"
