#!/bin/bash
# Run a command inside a throw-away QEMU guest (TCG) booting a Debian kernel
# from the rclink cache, with the host's root filesystem as the guest's root
# (read-only over virtio-9p, writable tmpfs overlay on top: guest writes are
# discarded).
#
# usage: run-guest.sh --kernel KREL [options] -- COMMAND [ARG...]
#
#   --kernel KREL      kernel release, unpacked in $RCLINK_CACHE/kernel/KREL
#   --kernel-image IMG boot IMG (a bzImage) as release KREL instead of the
#                      unpacked Debian kernel (e.g. the debug kernel of
#                      debug-kernel.sh); needs --moddir
#   --moddir DIR       its module tree (lib/modules/KREL, depmod'ed)
#   --qemu BIN         qemu-system-x86_64 (default:
#                      $RCLINK_CACHE/qemu/current/qemu-system-x86_64, else the
#                      one in PATH)
#   --fw DIR           firmware dir for -L (default: BIN's dir/share, else
#                      BIN's dir/../share/qemu); qboot.rom there is the BIOS
#   --mem SIZE         guest RAM (default 2G)
#   --smp N            guest CPUs (default 2)
#   --timeout SEC      kill the guest after SEC seconds (default 600)
#   --qemu-arg ARG     append ARG to the QEMU command line (repeatable)
#   --append PARAMS    extra kernel command line (e.g. loglevel=7)
#   --results DIR      writable dir shared with the guest, at the same path
#                      (default: a temp dir, removed afterwards).  The guest
#                      sees it as $RCLINK_RESULTS; console.log lands there.
#   --sleep-safe       put the two virtio-9p devices (the root and the
#                      results) behind PCIe root ports of their own with
#                      PMCSR No_Soft_Reset set: Linux 6.12 and later then
#                      leave them alone across system sleep (9p cannot
#                      restore its queues after a reset), so a test may
#                      suspend the guest (pci_faults.py system_sleep)
#
# COMMAND runs as root in the guest, in the host's current directory (same
# path), stdin /dev/null, stdout/stderr on the serial console, which is
# printed here.  The exit status is COMMAND's, or 125 when the guest could
# not run it (boot failure, crash, timeout).
#
# RCLINK_CACHE defaults to $HOME/.cache/rclink.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache=${RCLINK_CACHE:-$HOME/.cache/rclink}

die() { echo "run-guest: $*" >&2; exit 125; }
usage() {
	sed -n '/^# usage:/,/^# RCLINK_CACHE/s/^# \{0,1\}//p' "${BASH_SOURCE[0]}" >&2
	exit 125
}

krel="" kimg="" moddir="" qemu="" fw="" mem=2G smp=2 tmo=600 append="" results=""
sleep_safe=""
extra=()
need() { [ $# -ge 2 ] || die "$1 needs an argument"; }
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) need "$@"; krel=$2; shift 2 ;;
	--kernel-image) need "$@"; kimg=$2; shift 2 ;;
	--moddir) need "$@"; moddir=$2; shift 2 ;;
	--qemu) need "$@"; qemu=$2; shift 2 ;;
	--fw) need "$@"; fw=$2; shift 2 ;;
	--mem) need "$@"; mem=$2; shift 2 ;;
	--smp) need "$@"; smp=$2; shift 2 ;;
	--timeout) need "$@"; tmo=$2; shift 2 ;;
	--qemu-arg) need "$@"; extra+=("$2"); shift 2 ;;
	--append) need "$@"; append="$append $2"; shift 2 ;;
	--results) need "$@"; results=$2; shift 2 ;;
	--sleep-safe) sleep_safe=1; shift ;;
	--) shift; break ;;
	-h | --help) usage ;;
	*) echo "run-guest: unknown option '$1'" >&2; usage ;;
	esac
done
[ -n "$krel" ] || { echo "run-guest: --kernel is required" >&2; usage; }
[ $# -gt 0 ] || { echo "run-guest: no COMMAND after --" >&2; usage; }
case $tmo in '' | *[!0-9]*) die "--timeout wants seconds" ;; esac

initrd=$cache/initramfs/$krel.cpio.gz
mkargs=()
if [ -n "$kimg" ]; then
	[ -n "$moddir" ] || die "--kernel-image needs --moddir"
	[ -f "$kimg" ] || die "no kernel $kimg"
	[ -d "$moddir" ] || die "no module tree $moddir"
	kimg=$(cd "$(dirname "$kimg")" && pwd -P)/${kimg##*/}
	moddir=$(cd "$moddir" && pwd -P)
	mkargs=(--kernel-image "$kimg" --moddir "$moddir")
else
	[ -z "$moddir" ] || die "--moddir needs --kernel-image"
	kimg=$cache/kernel/$krel/boot/vmlinuz-$krel
	moddir=$cache/kernel/$krel/lib/modules/$krel
	[ -f "$kimg" ] || die "no kernel $kimg (run .ci/deps.sh)"
fi

if [ -z "$qemu" ]; then
	qemu=$cache/qemu/current/qemu-system-x86_64
	if [ ! -x "$qemu" ]; then
		qemu=$(command -v qemu-system-x86_64) ||
			die "no QEMU: neither $cache/qemu/current/qemu-system-x86_64 nor qemu-system-x86_64 in PATH"
	fi
fi
[ -x "$qemu" ] || die "QEMU binary $qemu not executable"
if [ -z "$fw" ]; then
	qdir=$(dirname "$qemu")
	for d in "$qdir/share" "$qdir/../share/qemu"; do
		if [ -d "$d" ]; then
			fw=$(cd "$d" && pwd)
			break
		fi
	done
fi
fwargs=()
if [ -n "$fw" ]; then
	fwargs=(-L "$fw")
	[ -f "$fw/qboot.rom" ] && fwargs+=(-bios "$fw/qboot.rom")
fi

"$here/mkinitramfs.sh" "${mkargs[@]}" "$krel" "$initrd" ||
	die "building the initramfs failed"

# xz-compressed kernels (6.1) decompress slowly under TCG: boot the extracted
# vmlinux through its PVH entry instead (cached; RCLINK_GUEST_PVH=0 disables).
kboot=$kimg
if [ "${RCLINK_GUEST_PVH:-1}" != 0 ]; then
	vml=$cache/initramfs/vmlinux-$krel
	stamp=$(stat -c '%s %Y' "$kimg")
	have=$(cat "$vml.key" 2>/dev/null || true)
	if [ "$have" = "$stamp" ] && [ -s "$vml" ]; then
		kboot=$vml
	elif [ "$have" != "$stamp n/a" ]; then
		rm -f "$vml.key"
		set +e
		"$here/extract-vmlinux.py" "$kimg" "$vml"
		xrc=$?
		set -e
		case $xrc in
		0) echo "$stamp" >"$vml.key" && kboot=$vml ;;
		2) rm -f "$vml" && echo "$stamp n/a" >"$vml.key" ;;
		*) echo "run-guest: warning: extracting vmlinux failed, booting $kimg" >&2 ;;
		esac
	fi
fi

# Per-run dir, shared read-write with the guest (9p tag "results").
if [ -n "$results" ]; then
	mkdir -p "$results"
	rdir=$(cd "$results" && pwd -P)
else
	rdir=$(mktemp -d "${TMPDIR:-/tmp}/rclink-guest.XXXXXX")
	rdir=$(cd "$rdir" && pwd -P)
	trap 'rm -rf "$rdir"' EXIT
fi
rm -f "$rdir/.rclink-exit" "$rdir/.rclink-exit.tmp"

shq() { # quote each argument for sh
	local a out=""
	for a in "$@"; do
		out="$out '${a//\'/\'\\\'\'}'"
	done
	printf '%s\n' "${out# }"
}
cwd=$(pwd -P)
{
	echo "RCLINK_RESULTS=$(shq "$rdir")"
	echo "RCLINK_MODDIR=$(shq "$moddir")"
	echo "RCLINK_CACHE=$(shq "$cache")"
	echo "RCLINK_CWD=$(shq "$cwd")"
} >"$rdir/.rclink-env"
{
	echo "cd $(shq "$cwd") || exit 125"
	echo "exec $(shq "$@")"
} >"$rdir/.rclink-cmd"

fsq() { printf '%s' "${1//,/,,}"; } # QEMU option value escaping
# The 9p devices: on bus 0, or each behind a root port, kept across sleep
# shellcheck disable=SC2054 # commas are QEMU option syntax
ninep=(
	-device virtio-9p-pci,fsdev=root,mount_tag=hostroot
	-device virtio-9p-pci,fsdev=results,mount_tag=results
)
if [ -n "$sleep_safe" ]; then
	# shellcheck disable=SC2054
	ninep=(
		-device pcie-root-port,id=rp9p0,chassis=200,slot=200,hotplug=off
		-device virtio-9p-pci,bus=rp9p0,fsdev=root,mount_tag=hostroot,x-pcie-pm-no-soft-reset=on
		-device pcie-root-port,id=rp9p1,chassis=201,slot=201,hotplug=off
		-device virtio-9p-pci,bus=rp9p1,fsdev=results,mount_tag=results,x-pcie-pm-no-soft-reset=on
	)
fi
# shellcheck disable=SC2054 # commas are QEMU option syntax
args=(
	-M q35 -accel tcg -cpu max -smp "$smp" -m "$mem"
	-nographic -no-reboot -vga none -nic none
	"${fwargs[@]}"
	-kernel "$kboot" -initrd "$initrd"
	-append "console=ttyS0 quiet panic=-1 pci=assign-busses$append"
	-fsdev local,id=root,path=/,security_model=none,readonly=on,multidevs=remap
	-fsdev "local,id=results,path=$(fsq "$rdir"),security_model=none,multidevs=remap"
	"${ninep[@]}"
	"${extra[@]}"
)

# Console: strip the serial line's CRs and the final power-off message.
# The pipeline runs in the background so that a signal to this script can
# stop QEMU right away (bash runs traps only between foreground commands).
rm -f "$rdir/.rclink-qemu-pid" "$rdir/.rclink-qemu-rc"
{
	timeout --foreground -k 10 "$tmo" "$qemu" "${args[@]}" </dev/null 2>&1 &
	echo $! >"$rdir/.rclink-qemu-pid"
	wait $!
	echo $? >"$rdir/.rclink-qemu-rc"
} | sed -u -e 's/\r//g' -e '/^\(\[ *[0-9.]*\] \)\{0,1\}reboot: Power down$/d' |
	tee "$rdir/console.log" &
pipe=$!
interrupted=""
trap 'interrupted=1; kill -TERM "$(cat "$rdir/.rclink-qemu-pid" 2>/dev/null)" 2>/dev/null || true' INT TERM HUP
while kill -0 "$pipe" 2>/dev/null; do
	wait "$pipe" || true
done
trap - INT TERM HUP
qrc=$(cat "$rdir/.rclink-qemu-rc" 2>/dev/null || echo "?")

[ -z "$interrupted" ] || die "interrupted"
if [ -f "$rdir/.rclink-exit" ]; then
	rc=$(cat "$rdir/.rclink-exit")
	case $rc in '' | *[!0-9]*) die "bad exit code '$rc' from the guest" ;; esac
	exit "$rc"
fi
case $qrc in
124 | 137) die "guest timed out after ${tmo}s" ;;
0) die "guest died without an exit code (kernel panic? see the console output)" ;;
*) die "QEMU failed (status $qrc)" ;;
esac
