#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Inside a fresh guest (make check-install, selftests/vm/install-test.sh):
# install the packages of `make deb` as a user would (DKMS builds the
# module for the running kernel), run the installed kselftest collection
# through its run_kselftest.sh, remove the packages.  KTAP on stdout.
#
# Environment: RCLINK_DEB_DIR (default build/deb), RCLINK_INSTALL_TESTS:
# the tests of drivers/net/rclink to run (default a short set; "all": the
# whole collection).
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
debs=${RCLINK_DEB_DIR:-$top/build/deb}
ver=$(cat "$top/VERSION")
krel=$(uname -r)
ksft=/usr/lib/rclink/kselftest
tests=${RCLINK_INSTALL_TESTS:-"probe.py t3_ping.sh t1_qp.sh devlink.sh"}
log=$(mktemp -d)
n=0 failed=0

ok() { n=$((n + 1)); echo "ok $n $1"; }
nok() { # name diagnostic
	n=$((n + 1))
	failed=1
	[ -n "${2:-}" ] && while IFS= read -r l; do echo "# $l"; done <<<"$2"
	echo "not ok $n $1"
}
res() { if [ "$2" = 0 ]; then ok "$1"; else nok "$1" "${3:-}"; fi; }

echo "TAP version 13"
echo "1..7"
echo "# kernel $krel, packages $ver from $debs"

# The guest's /lib/modules/KREL comes from the kernel package alone: the
# build link the linux-headers package adds on a real system is missing.
if [ ! -e "/lib/modules/$krel/build" ] && [ -d "/usr/src/linux-headers-$krel" ]; then
	ln -s "/usr/src/linux-headers-$krel" "/lib/modules/$krel/build"
fi

# 1: install; rclink-dkms's postinst builds and installs the module
start=$SECONDS
dpkg -i "$debs/rclink-dkms_${ver}_all.deb" "$debs"/rclink-tools_"${ver}"_*.deb \
	"$debs"/rclink-selftests_"${ver}"_*.deb >"$log/install" 2>&1
rc=$?
echo "# dpkg -i: exit $rc after $((SECONDS - start)) s"
res install "$rc" "$(tail -n 30 "$log/install")"

# 2: the module DKMS installed
f=$(modinfo -F filename rclink 2>/dev/null)
st=$(dkms status rclink 2>&1)
echo "# modinfo: $f; dkms status: $st"
case $f in
"/lib/modules/$krel/updates/dkms/rclink.ko"*) rc=0 ;;
*) rc=1 ;;
esac
grep -q "rclink/$ver, $krel, .*: installed" <<<"$st" || rc=1
res dkms_module "$rc" "modinfo: $f; dkms status: $st"

# 3: the tool, its man page and completion
errs=""
v=$(rclink -V 2>&1)
[ "$v" = "rclink utility, rclink-$ver" ] || errs+="rclink -V: $v; "
[ "$(command -v rclink)" = /usr/sbin/rclink ] || errs+="rclink is $(command -v rclink); "
zcat /usr/share/man/man8/rclink.8.gz 2>/dev/null | grep -q '^\.SH SYNOPSIS' ||
	errs+="no rclink(8); "
comp=$(bash -c 'source /usr/share/bash-completion/completions/rclink &&
	COMP_WORDS=(rclink qp de); COMP_CWORD=2; _rclink; echo "${COMPREPLY[*]}"' 2>&1)
[ "$comp" = del ] || errs+="completion of 'rclink qp de': '$comp'; "
res tool_installed "$([ -z "$errs" ]; echo $?)" "$errs"

# 4: modprobe, the boards bound
modprobe rclink >"$log/modprobe" 2>&1
rc=$?
bound=0
for b in /sys/bus/pci/drivers/rclink/0000:*; do
	[ -e "$b" ] && bound=$((bound + 1))
done
echo "# modprobe rclink: exit $rc, $bound board(s) bound"
[ "$bound" -ge 2 ] || rc=1
res modprobe "$rc" "$(cat "$log/modprobe")"

# 5: the installed suite through run_kselftest.sh (no file of the tree)
args=()
if [ "$tests" = all ]; then
	args=(-c drivers/net/rclink)
else
	for t in $tests; do
		args+=(-t "drivers/net/rclink:$t")
	done
fi
(cd / && "$ksft/run_kselftest.sh" "${args[@]}") >"$log/ksft" 2>&1
rc=$?
sed 's/^/  /' "$log/ksft"
nt=$(grep -c '^ok [0-9]* selftests: ' "$log/ksft")
nf=$(grep -c '^not ok [0-9]* selftests: ' "$log/ksft")
want=$(wc -w <<<"$tests")
[ "$tests" = all ] && want=$(wc -l <"$ksft/kselftest-list.txt")
echo "# run_kselftest.sh: exit $rc, $nt ok, $nf not ok, $want wanted"
[ "$nf" -eq 0 ] && [ "$nt" -eq "$want" ]
res installed_kselftests $? ""

# 6: nothing of the tree was used: the tests ran from $ksft
if grep -q "$top" "$log/ksft"; then
	nok installed_paths_only "the run mentions $top"
else
	ok installed_paths_only
fi

# 7: remove: module, tool and collection gone
modprobe -r rclink >/dev/null 2>&1
dpkg -r rclink-selftests rclink-tools rclink-dkms >"$log/remove" 2>&1
rc=$?
errs=""
for f in "/lib/modules/$krel/updates/dkms"/rclink.ko*; do
	[ -e "$f" ] && errs+="$f still installed; "
done
[ -e /usr/sbin/rclink ] && errs+="/usr/sbin/rclink still there; "
[ -e "$ksft" ] && errs+="$ksft still there: $(find "$ksft" | head -n 10 | tr '\n' ' '); "
modinfo rclink >/dev/null 2>&1 && errs+="modinfo still finds rclink; "
[ "$rc" = 0 ] || errs+="dpkg -r: $(tail -n 5 "$log/remove"); "
res remove "$([ -z "$errs" ]; echo $?)" "$errs"

rm -rf "$log"
exit "$failed"
