#!/bin/bash
# Build the busybox initramfs (gzip'd newc cpio) that boots a Debian guest
# kernel with the host's root filesystem as its (read-only, tmpfs-overlaid)
# root over virtio-9p.  See run-guest.sh for the other half of the protocol.
#
# usage: mkinitramfs.sh [--kernel-image IMG --moddir DIR] KREL OUT
#
# The kernel tree comes from ${RCLINK_CACHE:-$HOME/.cache/rclink}/kernel/KREL/
# (an unpacked linux-image .deb), or from IMG and its module tree DIR
# (lib/modules/KREL of a kernel built elsewhere, e.g. the debug kernel).  OUT is rebuilt only when its inputs changed
# (this script, the busybox binary, the kernel's module tree); a key file
# OUT.key records what it was built from.  BUSYBOX=path overrides the static
# busybox that is used (default: busybox from PATH, must be static).
#
# Boot protocol (what /init expects):
#   virtio-9p tag "hostroot": the host's /, read-only
#   virtio-9p tag "results":  a writable per-run directory holding
#       .rclink-env   sh-sourceable: RCLINK_RESULTS (host path of this dir),
#                     RCLINK_MODDIR (host path of lib/modules/KREL),
#                     optional RCLINK_CACHE, RCLINK_CWD (the command's
#                     working directory; kept visible when under /tmp)
#       .rclink-cmd   sh script run in the guest (stdout/stderr: console)
#     and receives .rclink-exit (the script's exit code) before power-off.
set -euo pipefail

usage() {
	echo "usage: ${0##*/} [--kernel-image IMG --moddir DIR] KREL OUT" >&2
	exit 2
}
kimg="" moddir=""
while [ $# -gt 0 ]; do
	case $1 in
	--kernel-image) [ $# -ge 2 ] || usage; kimg=$2; shift 2 ;;
	--moddir) [ $# -ge 2 ] || usage; moddir=$2; shift 2 ;;
	-*) usage ;;
	*) break ;;
	esac
done
[ $# -eq 2 ] || usage
krel=$1
out=$2
cache=${RCLINK_CACHE:-$HOME/.cache/rclink}
kdir=$cache/kernel/$krel
[ -n "$kimg" ] || kimg=$kdir/boot/vmlinuz-$krel
[ -n "$moddir" ] || moddir=$kdir/lib/modules/$krel
self=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/${BASH_SOURCE[0]##*/}

die() { echo "mkinitramfs: $*" >&2; exit 1; }
[ -f "$kimg" ] || die "no kernel image $kimg (run .ci/deps.sh)"
[ -f "$moddir/modules.order" ] || die "no module tree $moddir"

bb=${BUSYBOX:-$(command -v busybox || true)}
if [ -z "$bb" ] || [ ! -x "$bb" ]; then
	die "busybox not found (apt-get install busybox-static)"
fi
if ldd "$bb" >/dev/null 2>&1; then
	die "$bb is dynamically linked; need busybox-static (or BUSYBOX=/path/to/static/busybox)"
fi

# Modules /init loads, in this order (with their dependencies first).
# Whatever is built in (virtio in 6.12, ...) is simply not in modules.dep.
want="virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci
 netfs fscache 9pnet 9pnet_virtio 9p overlay"

key=$(
	{
		echo "krel $krel"
		sha256sum <"$self"
		sha256sum <"$bb"
		stat -c '%n %s %Y' "$kimg" "$moddir/modules.order" "$moddir/modules.builtin"
	} | sha256sum | cut -d' ' -f1
)
if [ -s "$out" ] && [ "$(cat "$out.key" 2>/dev/null)" = "$key" ]; then
	exit 0
fi

outdir=$(dirname "$out")
mkdir -p "$outdir"
work=$(mktemp -d "$outdir/.mkinitramfs.XXXXXX")
trap 'rm -rf "$work"' EXIT
root=$work/root
mkdir -p "$root"/{bin,dev,proc,sys,ro,results,newroot,mods,moddep,etc}

# busybox with all its applets
cp "$bb" "$root/bin/busybox"
for a in $("$bb" --list); do
	[ "$a" = busybox ] || ln -s busybox "$root/bin/$a"
done

# modules.dep & friends for the guest's /lib/modules/KREL (the cache holds an
# unpacked .deb whose postinst never ran depmod).  depmod reads the module
# tree through a symlink and writes only into the scratch base.
dbase=$work/depmod
mkdir -p "$dbase/lib/modules/$krel"
ln -s "$moddir/kernel" "$dbase/lib/modules/$krel/kernel"
for f in "$moddir"/modules.*; do
	cp "$f" "$dbase/lib/modules/$krel/"
done
depmod -b "$dbase" "$krel" 2>"$work/depmod.err" ||
	{ cat "$work/depmod.err" >&2; die "depmod failed"; }
rm "$dbase/lib/modules/$krel/kernel"
cp "$dbase/lib/modules/$krel"/modules.* "$root/moddep/"
depfile=$dbase/lib/modules/$krel/modules.dep

# Resolve the wanted modules (plus dependencies, depth first) to paths.
declare -A done_mod=()
order=()
visit() { # relative path as in modules.dep
	local rel=$1 deps dep
	[ -n "${done_mod[$rel]:-}" ] && return 0
	done_mod[$rel]=1
	deps=$(awk -F: -v k="$rel" '$1 == k {print $2; exit}' "$depfile")
	for dep in $deps; do
		visit "$dep"
	done
	order+=("$rel")
}
for m in $want; do
	rel=$(grep -m1 -E "(^|/)$m\.ko(\.xz|\.zst|\.gz)?:" "$depfile" | cut -d: -f1 || true)
	[ -n "$rel" ] && visit "$rel"
done
: >"$root/etc/modules"
n=0
for rel in "${order[@]}"; do
	name=${rel##*/}
	name=${name%%.ko*}
	dst=$root/mods/$(printf '%02d' "$n")-$name.ko
	case $rel in
	*.ko) cp "$moddir/$rel" "$dst" ;;
	*.ko.xz) xz -dc "$moddir/$rel" >"$dst" ;;
	*.ko.zst) zstd -qdc "$moddir/$rel" >"$dst" ;;
	*.ko.gz) gzip -dc "$moddir/$rel" >"$dst" ;;
	*) die "unknown module format: $rel" ;;
	esac
	echo "${dst#"$root"}" >>"$root/etc/modules"
	n=$((n + 1))
done
echo "$krel" >"$root/etc/krel"

# Stage 1: runs from the initramfs as PID 1.
cat >"$root/init" <<'EOF'
#!/bin/sh
export PATH=/bin
fail() {
	echo "rclink-init: $*" >&2
	[ -e /results/.rclink-env ] && echo 125 >/results/.rclink-exit
	poweroff -f
	sleep 10
}
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
krel=$(cat /etc/krel)
[ "$(uname -r)" = "$krel" ] || echo "rclink-init: warning: initramfs is for $krel, kernel is $(uname -r)" >&2
while read -r m; do
	insmod "$m" || fail "insmod $m failed"
done </etc/modules

o9p=trans=virtio,version=9p2000.L,msize=512000
mount -t 9p -o "ro,$o9p,cache=loose" hostroot /ro || fail "cannot mount 9p tag hostroot"
mount -t 9p -o "$o9p" results /results || fail "cannot mount 9p tag results"
[ -r /results/.rclink-env ] || fail "no .rclink-env in the results share"

# Writable tmpfs overlay on the read-only host root.
mount -t tmpfs -o mode=0755 rclink-rw /newroot || fail "tmpfs"
mkdir -p /newroot/upper /newroot/work /newroot/root
mount -t overlay -o lowerdir=/ro,upperdir=/newroot/upper,workdir=/newroot/work \
	rclink-root /newroot/root || fail "cannot mount the root overlay"
new=/newroot/root
mount -t tmpfs -o mode=0755,nosuid,nodev tmpfs "$new/run" || fail "tmpfs /run"
r=$new/run/rclink
mkdir -p "$r/hostroot" "$r/results" "$r/mod/upper" "$r/mod/work"
cp /bin/busybox /guest.sh /etc/krel "$r/"
cp /moddep/* "$r/mod/upper/"
mount --move /ro "$r/hostroot"
mount --move /results "$r/results"
mount --move /proc "$new/proc"
mount --move /sys "$new/sys"
mount --move /dev "$new/dev"
exec switch_root "$new" /run/rclink/busybox sh /run/rclink/guest.sh
fail "switch_root failed"
EOF
chmod 755 "$root/init"

# Stage 2: runs in the overlay root as PID 1, under the copied busybox.
cat >"$root/guest.sh" <<'EOF'
#!/bin/sh
r=/run/rclink
bb=$r/busybox
res=$r/results
fail() {
	echo "rclink-guest: $*" >&2
	echo 125 >"$res/.rclink-exit"
	$bb sync
	$bb poweroff -f
	$bb sleep 10
}
. "$res/.rclink-env" || fail "cannot read .rclink-env"
krel=$($bb cat $r/krel)
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=dumb LANG=C.UTF-8 SHELL=/bin/sh USER=root LOGNAME=root
[ -n "${RCLINK_CACHE:-}" ] && export RCLINK_CACHE
# A working directory under /tmp stays visible (and writable, in the overlay).
cwd_bound=""
case ${RCLINK_CWD:-} in
/tmp/?*)
	$bb mkdir -p $r/cwd && $bb mount --bind "$RCLINK_CWD" $r/cwd && cwd_bound=1 ;;
esac
$bb mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs /tmp || fail "tmpfs /tmp"
if [ -n "$cwd_bound" ]; then
	$bb mkdir -p "$RCLINK_CWD" && $bb mount --move $r/cwd "$RCLINK_CWD"
fi
$bb mount -t debugfs -o mode=0700 debugfs /sys/kernel/debug || fail "debugfs"
$bb mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
$bb mkdir -p /dev/pts /dev/shm
$bb mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts /dev/pts
$bb mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs /dev/shm
$bb ln -sfn /proc/self/fd /dev/fd
$bb ln -sfn /proc/self/fd/0 /dev/stdin
$bb ln -sfn /proc/self/fd/1 /dev/stdout
$bb ln -sfn /proc/self/fd/2 /dev/stderr
$bb mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null
$bb hostname rclink-guest
$bb ip link set lo up
# /lib/modules/KREL: the cache's module tree plus the depmod output.
if [ -n "${RCLINK_MODDIR:-}" ]; then
	$bb mkdir -p "/lib/modules/$krel" &&
		$bb mount -t overlay -o "lowerdir=$r/hostroot$RCLINK_MODDIR,upperdir=$r/mod/upper,workdir=$r/mod/work" \
			rclink-modules "/lib/modules/$krel" ||
		echo "rclink-guest: warning: cannot mount /lib/modules/$krel" >&2
fi
# The results share also appears at its host path.
if [ -n "${RCLINK_RESULTS:-}" ]; then
	$bb mkdir -p "$RCLINK_RESULTS" && $bb mount --bind "$res" "$RCLINK_RESULTS" ||
		fail "cannot bind the results dir to $RCLINK_RESULTS"
	export RCLINK_RESULTS
fi
cd / || fail "cd /"
/bin/sh "$res/.rclink-cmd" </dev/null
echo "$?" >"$res/.rclink-exit.tmp"
$bb mv "$res/.rclink-exit.tmp" "$res/.rclink-exit"
$bb sync
$bb poweroff -f
$bb sleep 10
EOF
chmod 755 "$root/guest.sh"

(cd "$root" && find . -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc --quiet -R 0:0) | gzip -6 >"$work/initramfs.cpio.gz"
mv "$work/initramfs.cpio.gz" "$out"
echo "$key" >"$out.key"
