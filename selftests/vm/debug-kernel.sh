#!/bin/bash
# The rclink debug kernel: linux-source-6.12 configured with
#   make defconfig kvm_guest.config debug.config
# plus selftests/vm/debug-kernel.config (KASAN, lockdep, kmemleak, UBSAN,
# DEBUG_NET, and what the guest runner and the selftests need), built once
# and cached by the hash of its final .config and the source it came from.
#
# usage: debug-kernel.sh build|path|config
#
#   build    build the kernel unless it is cached (about 40 minutes on two
#            cores, at nice 19); print its cache dir on the last line
#   path     print the cache dir when a complete build for the current inputs
#            is cached, else exit 1; never builds (make check uses this)
#   config   write the .config only and print the cache key it gives
#
# The cache dir ($RCLINK_CACHE/debug-kernel/KEY, RCLINK_CACHE defaults to
# $HOME/.cache/rclink) holds:
#   vmlinuz, System.map, config   the image, its symbols and .config
#   krel                          its release (uname -r)
#   build/                        the O= build tree: make -C build M=...
#                                 builds out-of-tree modules against it
#   modroot/lib/modules/KREL      the installed modules (depmod'ed)
#   build.log                     the build's output
#
# Environment: RCLINK_LINUX_SOURCE (the linux-source-6.12 tarball, default
# the newest /usr/src/linux-source-6.12*.tar.xz), RCLINK_DEBUG_KERNEL_JOBS
# (make -j, default 2).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache=${RCLINK_CACHE:-$HOME/.cache/rclink}
dk=$cache/debug-kernel
frag=$here/debug-kernel.config
jobs=${RCLINK_DEBUG_KERNEL_JOBS:-2}

die() { echo "debug-kernel: $*" >&2; exit 1; }
log() { echo "debug-kernel: $*" >&2; }

mode=${1:-}
case $mode in
build | path | config) ;;
*) echo "usage: ${0##*/} build|path|config" >&2; exit 2 ;;
esac

tarball=${RCLINK_LINUX_SOURCE:-}
if [ -z "$tarball" ]; then
	for f in /usr/src/linux-source-6.12*.tar.xz; do
		[ -f "$f" ] && tarball=$f
	done
fi
[ -f "$tarball" ] ||
	die "no linux-source-6.12 tarball (install linux-source-6.12 or set RCLINK_LINUX_SOURCE)"

# What the source is: the tarball's name, size and time, and the package
# version when dpkg knows it.
pkgver=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null || true)
src_id="$(basename "$tarball") $(stat -c '%s %Y' "$tarball") $pkgver"
src_key=$(printf '%s\n' "$src_id" | sha256sum | cut -c1-12)

# The inputs of the configuration (for "path", which must not configure):
# the source, our fragment, the compiler and linker.
inputs_key=$(
	{
		echo "$src_id"
		sha256sum <"$frag"
		gcc --version | head -n1
		ld --version | head -n1
	} | sha256sum | cut -c1-16
)

if [ "$mode" = path ]; then
	key=$(cat "$dk/inputs/$inputs_key" 2>/dev/null) || exit 1
	[ -f "$dk/${key:-none}/.complete" ] || exit 1
	echo "$dk/$key"
	exit 0
fi

mkdir -p "$dk/src" "$dk/inputs"
exec 9>"$dk/.lock"
flock 9 || die "cannot lock $dk/.lock"

# ---- source ------------------------------------------------------------------
src=$dk/src/$src_key
if [ ! -f "$src/.extracted" ]; then
	log "extracting $tarball"
	rm -rf "$src" "$src.tmp"
	mkdir -p "$src.tmp"
	tar -xJf "$tarball" -C "$src.tmp" --strip-components=1
	touch "$src.tmp/.extracted"
	mv "$src.tmp" "$src"
fi
for f in kernel/configs/debug.config arch/x86/configs/x86_64_defconfig \
	kernel/configs/kvm_guest.config; do
	[ -f "$src/$f" ] || die "no $f in $tarball"
done

# ---- configuration -----------------------------------------------------------
kmake() { nice -n 19 make -C "$src" -s "$@"; }
cfg=$(mktemp -d "$dk/.config.XXXXXX")
trap 'rm -rf "$cfg"' EXIT
kmake O="$cfg" defconfig kvm_guest.config debug.config >"$cfg/config.log" 2>&1 ||
	{ cat "$cfg/config.log" >&2; die "make defconfig kvm_guest.config debug.config failed"; }
"$src/scripts/kconfig/merge_config.sh" -m -O "$cfg" "$cfg/.config" "$frag" \
	>>"$cfg/config.log" 2>&1 ||
	{ cat "$cfg/config.log" >&2; die "merging $frag failed"; }
kmake O="$cfg" olddefconfig >>"$cfg/config.log" 2>&1 ||
	{ cat "$cfg/config.log" >&2; die "make olddefconfig failed"; }

# Every option of the fragment must have survived olddefconfig.
bad=0
while IFS= read -r line; do
	case $line in
	CONFIG_*=*) want=$line opt=${line%%=*} ;;
	"# CONFIG_"*" is not set") opt=${line#"# "} opt=${opt%% *} want="" ;;
	*) continue ;;
	esac
	have=$(grep -E "^($opt=|# $opt is not set)" "$cfg/.config" || true)
	case $have in "# $opt is not set") have="" ;; esac
	if [ "$have" != "$want" ]; then
		log "option ${want:-$opt=n} did not survive olddefconfig (${have:-$opt=n})"
		bad=1
	fi
done <"$frag"
[ $bad -eq 0 ] || die "fix $frag"

key=$( { cat "$cfg/.config"; echo "$src_id"; } | sha256sum | cut -c1-16)
if [ "$mode" = config ]; then
	echo "$key"
	exit 0
fi

# ---- build -------------------------------------------------------------------
dir=$dk/$key
if [ -f "$dir/.complete" ]; then
	echo "$key" >"$dk/inputs/$inputs_key"
	echo "$dir"
	exit 0
fi
mkdir -p "$dir"
# An interrupted build of the same configuration resumes where it stopped.
if ! cmp -s "$cfg/.config" "$dir/build/.config"; then
	rm -rf "$dir/build"
	mkdir -p "$dir/build"
	cp "$cfg/.config" "$dir/build/.config"
fi
start=$(date +%s)
log "building $key with make -j$jobs at nice 19 (log: $dir/build.log)"
{
	kmake O="$dir/build" -j"$jobs" olddefconfig &&
		kmake O="$dir/build" -j"$jobs" bzImage modules &&
		rm -rf "$dir/modroot" &&
		kmake O="$dir/build" INSTALL_MOD_PATH="$dir/modroot" \
			INSTALL_MOD_STRIP=1 modules_install
} >"$dir/build.log" 2>&1 || {
	tail -n 40 "$dir/build.log" >&2
	die "build failed (log: $dir/build.log)"
}
krel=$(make -C "$src" -s O="$dir/build" kernelrelease)
cp "$dir/build/arch/x86/boot/bzImage" "$dir/vmlinuz"
cp "$dir/build/System.map" "$dir/System.map"
cp "$dir/build/.config" "$dir/config"
echo "$krel" >"$dir/krel"
echo "$(($(date +%s) - start))" >"$dir/build-seconds"
touch "$dir/.complete"
echo "$key" >"$dk/inputs/$inputs_key"
log "built $krel in $(($(date +%s) - start)) s"
echo "$dir"
