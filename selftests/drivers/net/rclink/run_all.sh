#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the rclink selftests (TEST_PROGS of the Makefile, or the programs
# given as arguments) and print one KTAP stream: each program is one test
# whose own KTAP output is nested as its subtests (indented two spaces).
# Each program runs under the timeout of ./settings; exit 4 = SKIP.
# Exits 1 when any program failed, else 0.
#
# Environment (all optional; see lib/rclinktest.py):
#   RCLINK_KO    rclink.ko to load (default <repo>/build/$(uname -r)/rclink.ko,
#                else modprobe rclink)
#   RCLINK_DEVS  space separated PCI addresses of the boards to test
#                (default: every 1172:2404 device)
#   RCLINK_SKIP_TESTS  programs to leave out (reported as SKIP)
#   RCLINK_RESULTS  the QEMU run's results dir: after each program the
#                wire capture switch wire.pcap.capture is removed
# The tests that inject events map BAR0 while the driver is bound; with
# CONFIG_IO_STRICT_DEVMEM the kernel needs the boot option iomem=relaxed,
# otherwise they report SKIP.

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$here" || exit 1

if [ $# -gt 0 ]; then
	progs=("$@")
else
	# TEST_PROGS := a b \ (continued lines) of the Makefile
	read -r -a progs < <(awk '
		/^TEST_PROGS[ \t]*:?=/ { on = 1; sub(/^TEST_PROGS[ \t]*:?=/, "") }
		on { cont = sub(/\\[ \t]*$/, ""); printf "%s ", $0; if (!cont) on = 0 }
		END { print "" }' Makefile)
fi
timeout=$(sed -n 's/^timeout=\([0-9]*\)$/\1/p' settings 2>/dev/null)
timeout=${timeout:-45}

echo "TAP version 13"
echo "1..${#progs[@]}"
npass=0 nfail=0 nskip=0
# the names one space apart: a list written over several lines matches too
skips=" $(printf '%s' "${RCLINK_SKIP_TESTS:-}" | tr -s '[:space:]' ' ') "
i=0
for p in "${progs[@]}"; do
	i=$((i + 1))
	echo "# selftests: drivers/net/rclink: $p"
	case "$skips" in
	*" $p "*)
		echo "ok $i $p # SKIP left out of this run (RCLINK_SKIP_TESTS)"
		nskip=$((nskip + 1))
		continue
		;;
	esac
	if [ ! -x "$here/$p" ]; then
		echo "not ok $i $p # not executable"
		nfail=$((nfail + 1))
		continue
	fi
	# The output through a process substitution, not a pipe: a process
	# the test left behind holding its stdout must not keep this runner
	# waiting; the indenting sed gets 5 s to drain after the test ends,
	# then goes (and such a writer with it, on SIGPIPE).
	exec {out}> >(sed -u 's/^/  /')
	spid=$!
	t0=$SECONDS
	timeout --foreground -k 10 "$timeout" "$here/$p" </dev/null \
		>&"$out" 2>&1
	rc=$?
	exec {out}>&-
	# The wire capture switch a test may have turned on (wire_pcap()).
	[ -z "${RCLINK_RESULTS:-}" ] || rm -f "$RCLINK_RESULTS/wire.pcap.capture"
	for _ in $(seq 50); do
		kill -0 "$spid" 2>/dev/null || break
		sleep 0.1
	done
	kill "$spid" 2>/dev/null
	echo "# $p: $((SECONDS - t0)) s"
	case $rc in
	0)
		echo "ok $i $p"
		npass=$((npass + 1))
		;;
	4)
		echo "ok $i $p # SKIP"
		nskip=$((nskip + 1))
		;;
	124 | 137)
		echo "not ok $i $p # TIMEOUT $timeout seconds"
		nfail=$((nfail + 1))
		;;
	*)
		echo "not ok $i $p # exit=$rc"
		nfail=$((nfail + 1))
		;;
	esac
done
echo "# Totals: pass:$npass fail:$nfail skip:$nskip"
[ "$nfail" -eq 0 ]
