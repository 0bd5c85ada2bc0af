#!/bin/bash
# Print the QEMU arguments of a board set, one per line, for run-guest.sh
# (--qemu-arg each).  Usage: boards.sh pair|check [RESULTS_DIR]
#
#   pair   two boards wired back to back through a QEMU hub (the wire);
#          with RESULTS_DIR the wire is also dumped to RESULTS_DIR/wire.pcap
#   check  the pair plus the boards the selftests need to see refused or
#          falling back: MSI only, INTx only, a wrong magic, a newer shim
# shellcheck disable=SC2054 # QEMU options are comma separated
set -euo pipefail

set_=${1:-pair}
results=${2:-}

args=(
	-netdev hubport,id=w0,hubid=0
	-netdev hubport,id=w1,hubid=0
	-device rclink,netdev=w0,mac=02:52:43:00:00:01
	-device rclink,netdev=w1,mac=02:52:43:00:00:02
)
if [ -n "$results" ]; then
	args+=(-object "filter-dump,id=wire0,netdev=w0,file=$results/wire.pcap")
fi
case $set_ in
pair) ;;
check)
	args+=(
		-device rclink,msix=off,mac=02:52:43:00:01:01
		-device rclink,msix=off,msi=off,mac=02:52:43:00:01:02
		-device rclink,magic=0xdeadbeef,mac=02:52:43:00:01:03
		-device rclink,shim-major=2,mac=02:52:43:00:01:04
	)
	;;
*)
	echo "usage: $0 pair|check [RESULTS_DIR]" >&2
	exit 2
	;;
esac
printf '%s\n' "${args[@]}"
