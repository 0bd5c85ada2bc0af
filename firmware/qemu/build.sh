#!/bin/bash
# Build a minimal qemu-system-x86_64 from Debian's QEMU 10.0 source
# (bookworm-backports) with the rclink board model (firmware/qemu/rclink/)
# added as hw/rclink, into a cache outside the repository.
#
# The binary is keyed by a hash of everything in firmware/qemu/, so it is
# rebuilt only when the model (or this script) changes; the unpacked source
# and the configured build tree are kept, so a model change costs a re-copy
# and an incremental build. A fresh cache returns at once.
#
# Prints the binary's path as the last line of stdout; everything else goes
# to stderr. Also points $RCLINK_CACHE/qemu/current at the build, with the
# firmware directory for -L in current/share (use -bios qboot.rom).
#
# Environment:
#   RCLINK_CACHE           cache root (default ~/.cache/rclink)
#   RCLINK_QEMU_MODEL_DIR  model directory (default firmware/qemu/rclink)
#   RCLINK_QEMU_INCLUDE_DIR  shared headers copied beside the model
#                          (default include/: rclink_hw.h, rclink_regtab.h)
#   RCLINK_QEMU_REBUILD=1  ignore the cached binary (incremental rebuild)
#   RCLINK_QEMU_CLEAN=1    also drop the source and build trees (full rebuild)
#   RCLINK_JOBS            parallel jobs (default: nproc)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache=${RCLINK_CACHE:-$HOME/.cache/rclink}
qc=$cache/qemu
model=${RCLINK_QEMU_MODEL_DIR:-$here/rclink}
# The generated register headers the model shares with the driver.
incdir=${RCLINK_QEMU_INCLUDE_DIR:-$here/../../include}
series=10.0.
jobs=${RCLINK_JOBS:-$(nproc)}

# Everything the configured build tree depends on; a change here reconfigures.
configure_flags=(
	--python=/usr/bin/python3
	--target-list=x86_64-softmmu
	--without-default-features
	--disable-download
	--disable-docs
	--disable-tools
	--disable-guest-agent
	--disable-user
	--disable-debug-info
	--disable-install-blobs
	--enable-tcg
	--enable-kvm
	--enable-virtfs
	--enable-attr
	--enable-cap-ng
	--enable-vhost-kernel
	--enable-vhost-net
	--enable-plugins
)
# Firmware for the guests: qboot.rom and the option ROMs (Debian's
# qemu-system-data), and iPXE ROMs that virtio-net-pci and e1000e load.
fw_pkgs=(qemu-system-data ipxe-qemu)

log() { printf 'qemu-build: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

[ -d "$model" ] || die "model directory $model not found"
model=$(cd "$model" && pwd)
incdir=$(cd "$incdir" 2>/dev/null && pwd) || incdir=""
if [ ! -f "$model/meson.build" ] || [ ! -f "$model/Kconfig" ]; then
	die "$model needs at least meson.build and Kconfig"
fi

# The key: sha256 of the content of firmware/qemu/ (with the model taken
# from $model) and of the shared headers, as "hash  path" lines in a fixed
# order.
tree_sums() { # DIR PREFIX [find args...]
	local dir=$1 prefix=$2
	shift 2
	(cd "$dir" && find . "$@" -type f -print0 | LC_ALL=C sort -z |
		xargs -0 -r sha256sum) | sed "s|  \./|  $prefix|"
}
key=$({
	tree_sums "$here" "" -path ./rclink -prune -o
	tree_sums "$model" rclink/
	[ -z "$incdir" ] || tree_sums "$incdir" include/ -maxdepth 1 -name '*.h'
} | sha256sum | cut -c1-16)

fw_ok() { # DIR: does it hold what a q35 -kernel boot with our NICs needs?
	local f
	for f in qboot.rom linuxboot_dma.bin efi-virtio.rom efi-e1000e.rom; do
		[ -e "$1/$f" ] || return 1
	done
}

publish() { # KEY: point current at bin/KEY and print the binary
	local tmp=$qc/current.tmp.$$
	ln -sfn "bin/$1" "$tmp"
	mv -T "$tmp" "$qc/current"
	echo "$qc/bin/$1/qemu-system-x86_64"
}

out=$qc/bin/$key
if [ "${RCLINK_QEMU_REBUILD:-0}" != 1 ] && [ "${RCLINK_QEMU_CLEAN:-0}" != 1 ] &&
	[ -x "$out/qemu-system-x86_64" ] && fw_ok "$out/share"; then
	publish "$key"
	exit 0
fi

mkdir -p "$qc"
exec 9>"$qc/.lock"
if ! flock -n 9; then
	log "waiting for another build to finish"
	flock 9
fi
# Another run may have built this key while we waited.
if [ "${RCLINK_QEMU_REBUILD:-0}" != 1 ] && [ "${RCLINK_QEMU_CLEAN:-0}" != 1 ] &&
	[ -x "$out/qemu-system-x86_64" ] && fw_ok "$out/share"; then
	publish "$key"
	exit 0
fi

wait_apt() { # never run apt-get alongside another one
	local n=0
	while pgrep -x apt-get >/dev/null || pgrep -x dpkg >/dev/null; do
		[ $n -eq 0 ] && log "waiting for a running apt-get/dpkg"
		n=$((n + 1))
		[ $n -lt 720 ] || die "apt-get still running after an hour"
		sleep 5
	done
}

buildlog=$qc/build.log
: >"$buildlog"
started=$SECONDS
fail() { # MSG: show the end of the build log and stop
	log "error: $1; last lines of $buildlog:"
	tail -n 60 "$buildlog" >&2
	exit 1
}

# --- firmware packages ----------------------------------------------------
missing=()
for p in "${fw_pkgs[@]}"; do
	dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	log "installing ${missing[*]}"
	wait_apt
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends "${missing[@]}" >>"$buildlog" 2>&1 ||
		fail "apt-get install ${missing[*]} failed"
fi

# --- source ----------------------------------------------------------------
# The orig tarball of qemu from bookworm-backports. The Debian diff is not
# used (and may be missing from the archive): only the orig is fetched.
wait_apt
uris=$(apt-get source --print-uris qemu/bookworm-backports 2>>"$buildlog") ||
	fail "apt-get source --print-uris qemu/bookworm-backports failed"
read -r orig orig_sum < <(awk '$2 ~ /\.orig\.tar\./ {
	sub(/^SHA256:/, "", $4); print $2, $4; exit }' <<<"$uris") ||
	fail "no orig tarball for qemu in bookworm-backports"
ver=${orig#qemu_}
ver=${ver%.orig.tar.*}
case $ver in
$series*) ;;
*) die "bookworm-backports has qemu $ver, expected $series*" ;;
esac
src=$qc/src/qemu-$ver
bld=$qc/build/qemu-$ver

if [ "${RCLINK_QEMU_CLEAN:-0}" = 1 ]; then
	log "RCLINK_QEMU_CLEAN=1: dropping the source and build trees"
	rm -rf "$src" "$bld"
fi

if [ ! -f "$src/.rclink-unpacked" ]; then
	dl=$qc/dl
	mkdir -p "$dl"
	if ! echo "$orig_sum  $dl/$orig" | sha256sum -c --status 2>/dev/null; then
		log "fetching $orig"
		rm -f "$dl/$orig"
		# Fails on the Debian diff when only the orig is there: tolerated.
		(cd "$dl" && apt-get source --download-only -qq \
			qemu/bookworm-backports) >>"$buildlog" 2>&1 || true
		echo "$orig_sum  $dl/$orig" | sha256sum -c --status 2>/dev/null ||
			fail "could not fetch $orig (or its checksum is wrong)"
		rm -f "$dl"/*.dsc "$dl"/*.debian.tar.*
	fi
	log "unpacking $orig"
	rm -rf "$src" "$src.tmp" "$bld"
	mkdir -p "$src.tmp"
	tar -xf "$dl/$orig" -C "$src.tmp" --strip-components=1 ||
		fail "cannot unpack $orig"
	touch "$src.tmp/.rclink-unpacked"
	mv "$src.tmp" "$src"
	find "$qc/src" -mindepth 1 -maxdepth 1 ! -name "qemu-$ver" \
		-exec rm -rf {} +
	[ -d "$qc/build" ] && find "$qc/build" -mindepth 1 -maxdepth 1 \
		! -name "qemu-$ver" -exec rm -rf {} +
fi

# --- hook the model into the tree (idempotent) ------------------------------
grep -qxF "subdir('rclink')" "$src/hw/meson.build" ||
	echo "subdir('rclink')" >>"$src/hw/meson.build"
grep -qxF "source rclink/Kconfig" "$src/hw/Kconfig" ||
	echo "source rclink/Kconfig" >>"$src/hw/Kconfig"
grep -qxF "    'hw/rclink'," "$src/meson.build" ||
	sed -i "s|^    'hw/net',\$|&\n    'hw/rclink',|" "$src/meson.build"
grep -qxF "    'hw/rclink'," "$src/meson.build" ||
	die "could not add hw/rclink to trace_events_subdirs in meson.build"
# The +ds tarball has no edk2 blobs: never try to unpack them. (Edit only
# when needed: a new mtime on meson.build makes ninja re-run meson.)
if grep -q 'unpack_edk2_blobs = bzip2\.found()' "$src/meson.build"; then
	sed -i 's/^\( *unpack_edk2_blobs = \)bzip2\.found()$/\1false/' "$src/meson.build"
fi
grep -q 'unpack_edk2_blobs = bzip2' "$src/meson.build" &&
	die "could not turn off unpack_edk2_blobs in meson.build"

# Copy the model and the shared headers to hw/rclink, touching only files
# whose content changed, so that the incremental build recompiles just what
# depends on them (whatever their mtime).
dst=$src/hw/rclink
mkdir -p "$dst"
declare -A wanted=()
copy_in() { # FROM-DIR [find args...]
	local from=$1 f
	shift
	while IFS= read -r -d '' f; do
		wanted[$f]=1
		if ! cmp -s "$from/$f" "$dst/$f"; then
			mkdir -p "$(dirname "$dst/$f")"
			cp "$from/$f" "$dst/$f"
		fi
	done < <(cd "$from" && find . "$@" -type f -printf '%P\0')
}
[ -z "$incdir" ] || copy_in "$incdir" -maxdepth 1 -name '*.h'
copy_in "$model"
# QEMU's per-directory trace.h wrapper, for the trace group that the
# trace_events_subdirs entry above creates; written unless the model has one.
if [ -z "${wanted[trace.h]:-}" ]; then
	wanted[trace.h]=1
	th='#include "trace/trace-hw_rclink.h"'
	[ "$(cat "$dst/trace.h" 2>/dev/null)" = "$th" ] ||
		printf '%s\n' "$th" >"$dst/trace.h"
fi
while IFS= read -r -d '' f; do
	[ -n "${wanted[$f]:-}" ] || rm -f "$dst/$f"
done < <(cd "$dst" && find . -type f -printf '%P\0')
find "$dst" -mindepth 1 -type d -empty -delete

# --- configure (once per source tree and flag set) --------------------------
stamp=$bld/.rclink-configured
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "${configure_flags[*]}" ]; then
	log "configuring qemu $ver (log: $buildlog)"
	rm -rf "$bld"
	mkdir -p "$bld"
	(cd "$bld" && "$src/configure" "${configure_flags[@]}") >>"$buildlog" 2>&1 ||
		fail "configure failed"
	printf '%s\n' "${configure_flags[*]}" >"$stamp"
fi

# --- build ------------------------------------------------------------------
log "building qemu-system-x86_64 with $(basename "$model") (key $key, log: $buildlog)"
# Only the emulator: "all" would also build ~900 test programs.
ninja -C "$bld" -j"$jobs" qemu-system-x86_64 >>"$buildlog" 2>&1 ||
	fail "build failed"
[ -x "$bld/qemu-system-x86_64" ] || fail "no qemu-system-x86_64 after the build"

# --- install into bin/KEY -----------------------------------------------------
tmp=$qc/bin/.$key.tmp.$$
rm -rf "$tmp"
mkdir -p "$tmp/share"
cp "$bld/qemu-system-x86_64" "$tmp/"
# Firmware dir for -L: links to Debian's files. (The +ds tarball has no
# blobs, and its option ROMs are only built with an i386-capable compiler.)
for f in /usr/share/qemu/* /usr/lib/ipxe/qemu/*.rom; do
	[ -e "$f" ] && ln -sfn "$f" "$tmp/share/$(basename "$f")"
done
fw_ok "$tmp/share" || fail "firmware files missing from $tmp/share"
"$tmp/qemu-system-x86_64" -version >>"$buildlog" 2>&1 ||
	fail "the new binary does not run"
"$tmp/qemu-system-x86_64" -device help 2>/dev/null | grep -q rclink ||
	log "warning: no device named rclink* in -device help"
rm -rf "$out"
mv "$tmp" "$out"

# Keep the three most recent builds (and whatever current points at), and
# any built in the last three hours: a run in progress may be using it.
keep=$(readlink "$qc/current" 2>/dev/null || true)
find "$qc/bin" -mindepth 1 -maxdepth 1 -type d ! -name '.*' -mmin +180 \
	-printf '%T@ %f\n' | sort -rn | tail -n +4 | while read -r _ k; do
	[ "bin/$k" = "$keep" ] || rm -rf "${qc:?}/bin/$k"
done

log "built in $((SECONDS - started))s"
publish "$key"
