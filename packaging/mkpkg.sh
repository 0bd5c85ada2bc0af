#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Stage and build the rclink packages (make dkms, make deb).
#
# usage: mkpkg.sh dkms OUTDIR   the DKMS source tree OUTDIR/rclink-VERSION
#                               (dkms.conf, Kbuild, drivers, include, uapi)
#                               and OUTDIR/rclink-VERSION.tar.gz of it
#        mkpkg.sh deb OUTDIR    OUTDIR/*.deb:
#          rclink-dkms       the module's source for DKMS (built and
#                            installed for the running kernel when its
#                            headers are there, and on every new kernel)
#          rclink-tools      /usr/sbin/rclink, rclink(8), bash completion,
#                            librclink (.a, .h, librclink(3)) and the uAPI
#                            headers linux/rclink_dev.h, linux/rclink_nl.h
#          rclink-selftests  the kselftests as an installed collection:
#                            /usr/lib/rclink/kselftest/run_kselftest.sh,
#                            kselftest-list.txt, drivers/net/rclink/
#
# The tool and the C selftests are built first (make tools
# selftests-build).  Version: the top-level VERSION file.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${RCLINK_CACHE:-$HOME/.cache/rclink}
what=${1:-}
out=${2:-}
if [ -z "$what" ] || [ -z "$out" ]; then
	sed -n '/^# usage:/,/^# selftests-build/s/^# \{0,1\}//p' "$0" >&2
	exit 2
fi
ver=$(cat "$top/VERSION")
arch=$(dpkg --print-architecture)
mkdir -p "$out"
out=$(cd "$out" && pwd)
cd "$top"

stage_dkms() { # DIR: the module's source tree for DKMS
	local d=$1
	rm -rf "$d"
	mkdir -p "$d/drivers/rclink" "$d/include" "$d/uapi/linux"
	cp -p Kbuild "$d/"
	cp -p drivers/rclink/*.[ch] "$d/drivers/rclink/"
	cp -p include/*.h "$d/include/"
	cp -p uapi/linux/*.h "$d/uapi/linux/"
	sed "s/@VERSION@/$ver/g" packaging/dkms.conf.in >"$d/dkms.conf"
}

if [ "$what" = dkms ]; then
	stage_dkms "$out/rclink-$ver"
	tar -C "$out" -czf "$out/rclink-$ver.tar.gz" "rclink-$ver"
	echo "$out/rclink-$ver"
	exit 0
fi
[ "$what" = deb ] || { echo "mkpkg.sh: dkms or deb, not '$what'" >&2; exit 2; }

work=$out/staging
rm -rf "$work"
mkdir -p "$work"

control() { # DIR PACKAGE ARCH DEPENDS DESCRIPTION...
	local d=$1 p=$2 a=$3 dep=$4
	shift 4
	mkdir -p "$d/DEBIAN"
	{
		echo "Package: $p"
		echo "Version: $ver"
		echo "Architecture: $a"
		echo "Maintainer: rclink developers <rclink@localhost>"
		echo "Section: kernel"
		echo "Priority: optional"
		[ -n "$dep" ] && echo "Depends: $dep"
		echo "Installed-Size: $(du -sk --exclude=DEBIAN "$d" | cut -f1)"
		echo "Description: $1"
		shift
		local l
		for l in "$@"; do
			echo " $l"
		done
	} >"$d/DEBIAN/control"
}

build() { # DIR
	find "$1" -type d -exec chmod 0755 {} +
	dpkg-deb --root-owner-group -Zxz --build "$1" "$out" >/dev/null
}

# ---- rclink-dkms ----------------------------------------------------------
d=$work/rclink-dkms
stage_dkms "$d/usr/src/rclink-$ver"
find "$d/usr/src" -type f -exec chmod 0644 {} +
mkdir -p "$d/usr/share/doc/rclink-dkms"
cp -p README.md "$d/usr/share/doc/rclink-dkms/"
control "$d" rclink-dkms all "dkms, make, gcc" \
	"rclink.ko for the RCLINK-Stream PCIe boards, as DKMS source" \
	"The Linux driver of the FPGA boards carrying the RCLINK-Stream IP," \
	"the PCIe shim and the LL 100G MAC.  DKMS builds and installs it for" \
	"each kernel whose headers are installed."
cat >"$d/DEBIAN/postinst" <<POST
#!/bin/sh
set -e
if [ "\$1" = configure ]; then
	dkms add -m rclink -v $ver >/dev/null 2>&1 || true
	krel=\$(uname -r)
	if [ -e "/lib/modules/\$krel/build" ]; then
		dkms build -m rclink -v $ver -k "\$krel"
		dkms install -m rclink -v $ver -k "\$krel" --force
	else
		echo "rclink-dkms: no headers for \$krel (/lib/modules/\$krel/build): not built" >&2
	fi
fi
POST
cat >"$d/DEBIAN/prerm" <<PRERM
#!/bin/sh
set -e
if [ "\$1" = remove ] || [ "\$1" = upgrade ] || [ "\$1" = deconfigure ]; then
	dkms remove -m rclink -v $ver --all >/dev/null 2>&1 || true
fi
PRERM
chmod 0755 "$d/DEBIAN/postinst" "$d/DEBIAN/prerm"
build "$d"

# ---- rclink-tools ---------------------------------------------------------
make -s tools
d=$work/rclink-tools
install -D -m 0755 build/tools/rclink "$d/usr/sbin/rclink"
strip "$d/usr/sbin/rclink"
install -d "$d/usr/share/man/man8"
gzip -9n <tools/rclink/rclink.8 >"$d/usr/share/man/man8/rclink.8.gz"
# librclink: the kernel-bypass contexts (static library, header, man page)
install -D -m 0644 build/tools/librclink.a "$d/usr/lib/librclink.a"
install -D -m 0644 tools/lib/librclink.h "$d/usr/include/librclink.h"
# the uAPI headers librclink.h and programs of the netlink family need
install -D -m 0644 uapi/linux/rclink_dev.h "$d/usr/include/linux/rclink_dev.h"
install -D -m 0644 uapi/linux/rclink_nl.h "$d/usr/include/linux/rclink_nl.h"
install -d "$d/usr/share/man/man3"
gzip -9n <tools/lib/librclink.3 >"$d/usr/share/man/man3/librclink.3.gz"
install -D -m 0644 tools/rclink/rclink.bash-completion \
	"$d/usr/share/bash-completion/completions/rclink"
install -D -m 0644 Documentation/uapi/rclink-tool.rst \
	"$d/usr/share/doc/rclink-tools/rclink-tool.rst"
control "$d" rclink-tools "$arch" "libc6, libnl-3-200, libnl-genl-3-200" \
	"netlink tool of the RCLINK-Stream PCIe boards" \
	"rclink configures the TYPE1 queue pairs of rclink boards through" \
	"the generic netlink family rclink (rclink(8))."
build "$d"

# ---- rclink-selftests -----------------------------------------------------
make -s selftests-build
d=$work/rclink-selftests
base=$d/usr/lib/rclink/kselftest
src=selftests/drivers/net/rclink
ksft=$cache/linux-tools/tools/testing/selftests
if [ ! -f "$ksft/kselftest/runner.sh" ]; then
	lsrc=$(find /usr/src -maxdepth 1 -name 'linux-source-*.tar.xz' | sort | tail -n 1)
	[ -n "$lsrc" ] || { echo "mkpkg.sh: no linux-source-*.tar.xz" >&2; exit 1; }
	mkdir -p "$cache/linux-tools"
	tar -xJf "$lsrc" -C "$cache/linux-tools" --strip-components=1 \
		--wildcards '*/tools/testing/selftests/kselftest/*' \
		'*/tools/testing/selftests/run_kselftest.sh'
fi
install -d "$base/kselftest" "$base/drivers/net/rclink/lib"
install -m 0755 "$ksft/run_kselftest.sh" "$base/"
install -m 0755 "$ksft"/kselftest/*.sh "$ksft"/kselftest/*.pl "$base/kselftest/"
progs=$(make -s -C "$src" -f Makefile -f - print-progs <<'MK'
print-progs:
	@echo $(TEST_PROGS)
MK
)
files=$(make -s -C "$src" -f Makefile -f - print-files <<'MK'
print-files:
	@echo $(TEST_FILES)
MK
)
for p in $progs; do
	install -m 0755 "$src/$p" "$base/drivers/net/rclink/"
done
for f in $files; do
	install -D -m 0644 "$src/$f" "$base/drivers/net/rclink/$f"
done
chmod 0755 "$base"/drivers/net/rclink/lib/*.py
install -m 0755 build/selftests/t1_msg build/selftests/t1_uctx \
	build/selftests/t1_rdma "$base/drivers/net/rclink/"
for p in $progs; do
	echo "drivers/net/rclink:$p"
done >"$base/kselftest-list.txt"
# byte code the tests' python left (py3clean does this for packages)
install -d "$d/DEBIAN"
cat >"$d/DEBIAN/prerm" <<'PRERM'
#!/bin/sh
set -e
find /usr/lib/rclink/kselftest -name __pycache__ -type d -prune \
	-exec rm -rf {} + 2>/dev/null || true
PRERM
chmod 0755 "$d/DEBIAN/prerm"
control "$d" rclink-selftests "$arch" \
	"rclink-tools (= $ver), python3, bash, iproute2, ethtool, kmod" \
	"kselftests of the rclink driver, as an installed collection" \
	"run_kselftest.sh -c drivers/net/rclink in /usr/lib/rclink/kselftest" \
	"runs them (KTAP) against the boards of this machine."
build "$d"

rm -rf "$work"
ls "$out"/*.deb
