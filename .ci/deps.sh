#!/bin/bash
# Install everything the build and the tests need on a fresh Debian 12 machine,
# and fetch the two guest kernels into the cache. Idempotent and quiet when done.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${RCLINK_CACHE:-$HOME/.cache/rclink}
mkdir -p "$cache"
export DEBIAN_FRONTEND=noninteractive

bash "$here/apt-sources.sh"

# The two guest kernels: 6.1 from bookworm, 6.12 from bookworm-backports.
meta_dep() { # PKG SUITE -> the versioned package the meta package depends on
	local ver
	ver=$(apt-cache madison "$1" | awk -v s="$2" '$0 ~ s {print $3; exit}')
	apt-cache depends "$1=$ver" | awk '/Depends: linux-/ {print $2; exit}'
}
if [ ! -s "$cache/kernels.env" ]; then
	img61=$(meta_dep linux-image-amd64 'bookworm-security|bookworm/main')
	img612=$(meta_dep linux-image-amd64 'bookworm-backports')
	rel61=${img61#linux-image-}
	rel612=${img612#linux-image-}
	printf 'KREL_61=%s\nKREL_612=%s\n' "$rel61" "$rel612" > "$cache/kernels.env"
fi
# shellcheck disable=SC1091
. "$cache/kernels.env"

pkgs="build-essential bc kmod cpio xz-utils zstd busybox-static python3-yaml
 python3-jsonschema sparse libelf-dev dpkg-dev pkg-config libglib2.0-dev
 libpixman-1-dev zlib1g-dev libattr1-dev libcap-ng-dev libfdt-dev ninja-build
 python3-venv flex bison iproute2 ethtool pciutils libnl-genl-3-dev
 libnl-3-dev tshark tcpdump iputils-ping iperf3 socat qemu-system-data ipxe-qemu shellcheck
 iverilog verilator yosys dkms linux-source-6.12 linux-headers-$KREL_61 linux-headers-$KREL_612"
missing=""
for p in $pkgs; do
	dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
bp="meson python3-pycotap"
for p in $bp; do
	dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p/bookworm-backports"
done
if [ -n "$missing" ]; then
	echo "deps: installing$missing"
	# shellcheck disable=SC2086 # a list of package names
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

# The RTL's cocotb test bench (firmware/rtl/rtl.sh cocotb): pinned Python
# packages in a virtual environment of Debian's python3, rebuilt when the
# requirements change.
req=$here/../firmware/rtl/cocotb/requirements.txt
venv=$cache/cocotb-venv
if ! cmp -s "$req" "$venv/requirements.txt"; then
	echo "deps: installing the cocotb virtual environment"
	rm -rf "$venv"
	/usr/bin/python3 -m venv "$venv"
	"$venv/bin/pip" install -q --disable-pip-version-check -r "$req"
	cp "$req" "$venv/requirements.txt"
fi

# Guest kernel images, unpacked into the cache (never installed on the host).
for rel in "$KREL_61" "$KREL_612"; do
	d="$cache/kernel/$rel"
	[ -f "$d/boot/vmlinuz-$rel" ] && continue
	rm -rf "$d.tmp" && mkdir -p "$d.tmp"
	(
		cd "$d.tmp"
		if ! apt-get download -qq "linux-image-$rel" 2>/dev/null; then
			apt-get download -qq "linux-image-$rel-unsigned"
		fi
	)
	dpkg-deb -x "$d.tmp"/*.deb "$d.tmp/root"
	rm -rf "$d" && mv "$d.tmp/root" "$d" && rm -rf "$d.tmp"
done
echo "deps: ready (kernels $KREL_61, $KREL_612)"
