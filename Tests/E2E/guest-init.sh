#!/bin/sh
# /init of the E2E guest: load modules, mount the host read-only, the checkout and the
# results folder at their host paths, run the script in a chroot, report its status.
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
for m in $(cat /modules); do insmod "/lib/modules/$m" 2>/dev/null || echo "init: insmod $m failed"; done
for arg in $(cat /proc/cmdline); do
  case $arg in
    e2e.script=*) script=${arg#e2e.script=} ;;
    e2e.root=*) root=${arg#e2e.root=} ;;
    e2e.out=*) out=${arg#e2e.out=} ;;
  esac
done
h=/host
opts=trans=virtio,version=9p2000.L,msize=512000
mount -t 9p -o "$opts,ro,cache=loose" hostroot $h || { echo "init: cannot mount the host"; poweroff -f; }
mount -t tmpfs tmpfs $h/tmp
mount -t tmpfs tmpfs $h/run
mount -t proc proc $h/proc
mount -t sysfs sysfs $h/sys
mount -t devtmpfs devtmpfs $h/dev
mkdir -p $h/dev/pts $h/dev/shm
mount -t devpts devpts $h/dev/pts
mount -t tmpfs tmpfs $h/dev/shm
# The checkout and the results at their host paths (they may be under /tmp, now a tmpfs).
mkdir -p "$h$root" "$h$out"
mount -t 9p -o "$opts,ro" checkout "$h$root" || { echo "init: cannot mount the checkout"; poweroff -f; }
mount -t 9p -o "$opts" out "$h$out" || { echo "init: cannot mount the results"; poweroff -f; }
chroot $h /usr/bin/env -i HOME=/root TERM=dumb SYSTEMD_IGNORE_CHROOT=1 E2E_OUT="$out" \
  PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/opt/swift/usr/bin \
  /bin/sh -c "cd '$root' && exec /bin/sh '$script'"
status=$?
echo "$status" > "$h$out/.exit"
sync
poweroff -f
