#!/bin/bash
# Print the QEMU arguments of a board set, one per line, for run-guest.sh
# (--qemu-arg each).
# Usage: boards.sh pair|check|hub|faults|rtl|rtl-irq|rtl-pair|rtl-faults|rtl-rtl [RESULTS_DIR]
#
#   pair   two boards wired back to back through a QEMU hub (the wire);
#          with RESULTS_DIR the wire is also dumped to RESULTS_DIR/wire.pcap:
#          filter-dump writes into the FIFO RESULTS_DIR/wire.fifo, read by
#          wirecap.py (started here, its summary in RESULTS_DIR/wirecap.log)
#          which keeps only the frames of the tests that read the wire
#   check  the pair plus the boards the selftests need to see refused or
#          falling back: MSI only, INTx only, a wrong magic, a newer shim,
#          one without the registers whose place rclink assumed
#          (assumed-regs=off: bound, TYPE1/TYPE2 disabled, assumed.py),
#          one whose TYPE2_PKT_LEN holds no message (type2-pkt-len=4:
#          bound, TYPE2 groups refused, t2_pkt_len.py), one that does
#          not count the IP's internal events, as a shim beside the real
#          IP (ip-internal-counters=off: bound, those counters absent,
#          probe.py, vectors.py ip_counters)
#          RCLINK_PAIR_OPTS: more rclink device options for the pair's two
#          model boards (every set with the pair), for example
#          ip-internal-counters=off: a pair as two shims beside the real IP
#   hub    $RCLINK_HUB_BOARDS boards (default 8, at least 2) on one QEMU hub:
#          a switch that floods, the pair being its first two ports
#   faults the pair, each board behind a PCIe root port of its own (no hot
#          plug), as on a server: AER reaches the driver through the port
#          (pci_faults.py).  The ports train at 2.5 GT/s: a QEMU port of
#          a faster link reports Data Link Layer Link Active only through
#          its hot plug code, so without hot plug Linux would wait for it in
#          vain after a secondary bus reset (the board has a PM capability,
#          hence a D3cold delay, hence that wait).  The other sets keep every board on bus 0, in
#          the order given: the pair first, probed first, named first.
#   rtl    one RTL board: the rclink device with rtl=SOCKET, whose BAR0,
#          DMA and interrupts are those of the Verilated shim core
#          (firmware/rtl/cosim, built here, cached) started here in the
#          background; it serves one QEMU and ends when QEMU goes.  Its
#          log is RESULTS_DIR/cosim0.log (or in a temporary directory).
#          No wire: the board has no peer.  The simulator's stand-ins
#          serve the shim's IP side.
#   rtl-irq  two RTL boards as rtl, each with its own simulator (logs
#          cosim0.log, cosim1.log): one without MSI-X (msix=off: MSI), one
#          without MSI-X and MSI (INTx), for irq_fallback.sh
#   rtl-pair  an RTL board and a model board wired back to back through a
#          QEMU hub, as the pair: the RTL board (rtl=SOCKET,rtl-bridge=on)
#          bridges its shim's IP side into its QEMU device's model of the
#          IP and wire (simulator --ip-bridge), so the RTL's shim sends and
#          receives through the model's IP, as a board of its own.  The RTL
#          board is at PCI address 00:10.0, the model board at 00:11.0.
#   rtl-faults  rtl-pair with each board behind a PCIe root port of its
#          own, as the faults set (AER reaches the driver through the port:
#          pci_faults.py); the RTL board's port first, so the RTL board is
#          probed and named first
#   rtl-rtl  rtl-pair with two RTL boards (00:10.0 and 00:11.0), each with
#          its own simulator (logs cosim0.log, cosim1.log).
# shellcheck disable=SC2054 # QEMU options are comma separated
set -euo pipefail

set_=${1:-pair}
results=${2:-}

nport=0
board() { # rclink device options
	if [ "$set_" = faults ]; then
		nport=$((nport + 1))
		args+=(-device "pcie-root-port,id=rp$nport,chassis=$nport,slot=$nport,hotplug=off,x-speed=2_5"
			-device "rclink,bus=rp$nport,$1")
	else
		args+=(-device "rclink,$1")
	fi
}

# start_sim N EXTRA_OPTION...: start the RTL simulator of board N in the
# background; sets sock to its socket
start_sim() {
	local n=$1 here sim dir i vopt=()
	shift
	here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
	sim=$("$here/../../firmware/rtl/cosim/build.sh" </dev/null | tail -n 1)
	dir=${results:-$(mktemp -d "${TMPDIR:-/tmp}/rclink-cosim.XXXXXX")}
	sock=$dir/rtl$n.sock
	rm -f "$sock"
	[ -n "${RCLINK_COSIM_VERBOSE:-}" ] && vopt=(--verbose)
	{
		"$sim" --socket "$sock" --serial "524302524300020$((n + 1))" \
			--mac "02524300020$((n + 1))" "${vopt[@]}" "$@"
		echo "rclink-cosim: exit status $?"
	} </dev/null >"$dir/cosim$n.log" 2>&1 &
	for ((i = 0; i < 100; i++)); do
		[ -S "$sock" ] && break
		sleep 0.1
	done
	[ -S "$sock" ] || { echo "boards.sh: the RTL simulator did not start" >&2; exit 1; }
}

if [ "$set_" = rtl ]; then
	start_sim 0
	printf '%s\n' -device "rclink,rtl=$sock,mac=02:52:43:00:02:01"
	exit 0
fi
if [ "$set_" = rtl-irq ]; then
	start_sim 0
	printf '%s\n' -device "rclink,rtl=$sock,msix=off,mac=02:52:43:00:02:01"
	start_sim 1
	printf '%s\n' -device "rclink,rtl=$sock,msix=off,msi=off,mac=02:52:43:00:02:02"
	exit 0
fi
if [ "$set_" = rtl-pair ]; then
	start_sim 0 --ip-bridge
	printf '%s\n' -netdev hubport,id=w0,hubid=0 -netdev hubport,id=w1,hubid=0 \
		-device "rclink,rtl=$sock,rtl-bridge=on,netdev=w0,addr=0x10,mac=02:52:43:00:02:01" \
		-device "rclink,netdev=w1,addr=0x11,mac=02:52:43:00:00:02"
	exit 0
fi
if [ "$set_" = rtl-faults ]; then
	start_sim 0 --ip-bridge
	printf '%s\n' -netdev hubport,id=w0,hubid=0 -netdev hubport,id=w1,hubid=0 \
		-device pcie-root-port,id=rp1,chassis=1,slot=1,hotplug=off,x-speed=2_5 \
		-device "rclink,bus=rp1,rtl=$sock,rtl-bridge=on,netdev=w0,mac=02:52:43:00:02:01" \
		-device pcie-root-port,id=rp2,chassis=2,slot=2,hotplug=off,x-speed=2_5 \
		-device "rclink,bus=rp2,netdev=w1,mac=02:52:43:00:00:02"
	exit 0
fi
if [ "$set_" = rtl-rtl ]; then
	start_sim 0 --ip-bridge
	printf '%s\n' -netdev hubport,id=w0,hubid=0 -netdev hubport,id=w1,hubid=0 \
		-device "rclink,rtl=$sock,rtl-bridge=on,netdev=w0,addr=0x10,mac=02:52:43:00:02:01"
	start_sim 1 --ip-bridge
	printf '%s\n' -device "rclink,rtl=$sock,rtl-bridge=on,netdev=w1,addr=0x11,mac=02:52:43:00:02:02"
	exit 0
fi

args=(
	-netdev hubport,id=w0,hubid=0
	-netdev hubport,id=w1,hubid=0
)
board "netdev=w0,mac=02:52:43:00:00:01${RCLINK_PAIR_OPTS:+,$RCLINK_PAIR_OPTS}"
board "netdev=w1,mac=02:52:43:00:00:02${RCLINK_PAIR_OPTS:+,$RCLINK_PAIR_OPTS}"
if [ -n "$results" ]; then
	fifo=$results/wire.fifo
	rm -f "$fifo" "$results/wire.pcap.capture"
	mkfifo "$fifo"
	"$(dirname "${BASH_SOURCE[0]}")/wirecap.py" --wait 1800 "$fifo" \
		"$results/wire.pcap" </dev/null >"$results/wirecap.log" 2>&1 &
	args+=(-object "filter-dump,id=wire0,netdev=w0,file=$fifo")
fi
case $set_ in
pair | faults) ;;
hub)
	nb=${RCLINK_HUB_BOARDS:-8}
	[ "$nb" -ge 2 ] 2>/dev/null || { echo "RCLINK_HUB_BOARDS: $nb" >&2; exit 2; }
	for ((i = 2; i < nb; i++)); do
		args+=(-netdev "hubport,id=w$i,hubid=0")
		board "netdev=w$i,mac=$(printf '02:52:43:00:00:%02x' $((i + 1)))"
	done
	;;
check)
	board msix=off,mac=02:52:43:00:01:01
	board msix=off,msi=off,mac=02:52:43:00:01:02
	board magic=0xdeadbeef,mac=02:52:43:00:01:03
	board shim-major=2,mac=02:52:43:00:01:04
	board assumed-regs=off,mac=02:52:43:00:01:05
	board type2-pkt-len=4,mac=02:52:43:00:01:06
	board ip-internal-counters=off,mac=02:52:43:00:01:07
	;;
*)
	echo "usage: $0 pair|check|hub|faults|rtl|rtl-irq|rtl-pair|rtl-faults|rtl-rtl [RESULTS_DIR]" >&2
	exit 2
	;;
esac
printf '%s\n' "${args[@]}"
