#!/bin/bash
# make demo: boot the QEMU board pair, load the driver, show it working.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${RCLINK_CACHE:-$HOME/.cache/rclink}
cd "$top"
# shellcheck disable=SC1091
. "$cache/kernels.env"
krel=${RCLINK_KERNEL:-$KREL_612}
qemu=$(firmware/qemu/build.sh | tail -n 1)
make -s modules tools
qargs=()
while IFS= read -r a; do
	qargs+=(--qemu-arg "$a")
done < <(selftests/vm/boards.sh pair)
exec selftests/vm/run-guest.sh --kernel "$krel" --qemu "$qemu" --append "iomem=relaxed loglevel=3" \
	"${qargs[@]}" -- selftests/vm/demo-guest.sh
