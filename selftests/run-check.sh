#!/bin/bash
# make check: host-side tests, then the kselftests in a guest for each
# Debian kernel (6.1 and 6.12) against the QEMU board model.  Every part
# prints KTAP into build/check/; the summary ends with "N passed, N failed".
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${RCLINK_CACHE:-$HOME/.cache/rclink}
out=$top/build/check
py=/usr/bin/python3
rm -rf "$out"
mkdir -p "$out"
cd "$top" || exit 1

# shellcheck disable=SC1091
. "$cache/kernels.env"
kernels=${RCLINK_KERNELS:-"$KREL_61 $KREL_612"}

# ---- host ------------------------------------------------------------------
{
	echo "TAP version 13"
	echo "1..5"
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
} >"$out/host.ktap"
cat "$out/host.ktap"

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

# ---- guests ----------------------------------------------------------------
for krel in $kernels; do
	res=$out/guest-$krel
	mkdir -p "$res"
	qargs=()
	while IFS= read -r a; do
		qargs+=(--qemu-arg "$a")
	done < <(selftests/vm/boards.sh check "$res")
	echo "# guest $krel: booting"
	selftests/vm/run-guest.sh --kernel "$krel" --qemu "$qemu" \
		--timeout "${RCLINK_GUEST_TIMEOUT:-2400}" --results "$res" \
		--append "iomem=relaxed loglevel=3" "${qargs[@]}" -- \
		selftests/drivers/net/rclink/run_all.sh >"$res/run.log" 2>&1
	echo "# guest $krel: exit $?"
	# The KTAP of the run, without the console noise around it.
	sed -n '/^TAP version/,$p' "$res/run.log" | tr -d '\r' \
		>"$out/guest-$krel.ktap"
	cat "$out/guest-$krel.ktap"
done

"$py" selftests/vm/ktap-summary.py "$out"/*.ktap
