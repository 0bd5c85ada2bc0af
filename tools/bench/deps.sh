#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Packages only `make bench` needs (run by tools/bench/run-bench.sh after
# .ci/deps.sh): rdma-core and ibverbs-providers (the rxe user-space
# provider, the `rdma` tool comes with iproute2), ibverbs-utils, perftest
# (ib_send_bw / ib_send_lat), sockperf (UDP), iperf3.  The guest shares the
# host's root filesystem, so what is installed here exists in the guest.
# Idempotent and quiet when everything is there.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive

pkgs="rdma-core ibverbs-providers ibverbs-utils perftest sockperf iperf3"
missing=""
for p in $pkgs; do
	dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
[ -n "$missing" ] || exit 0

# Never run apt-get alongside another one.
n=0
while pgrep -x apt-get >/dev/null || pgrep -x dpkg >/dev/null; do
	[ "$n" -eq 0 ] && echo "bench-deps: waiting for another apt-get/dpkg" >&2
	n=$((n + 1))
	[ "$n" -lt 600 ] || { echo "bench-deps: apt is busy for too long" >&2; exit 1; }
	sleep 1
done
echo "bench-deps: installing$missing" >&2
# shellcheck disable=SC2086 # a list of package names
apt-get install -y -qq --no-install-recommends $missing >/dev/null ||
	{
		apt-get update -qq >/dev/null
		# shellcheck disable=SC2086
		apt-get install -y -qq --no-install-recommends $missing >/dev/null
	}
