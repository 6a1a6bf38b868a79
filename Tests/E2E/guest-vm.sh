#!/bin/sh
# Runs a test script as root inside a throw-away Linux guest (Debian's generic kernel under
# qemu, software emulation), where /dev/uinput, evdev and udev are real. The host's root
# filesystem is shared read-only, so host-built binaries run unchanged; the checkout is
# shared again explicitly (it may live under /tmp, which the guest replaces with a tmpfs),
# and a results folder is shared writable.
#
# usage: Tests/E2E/guest-vm.sh SCRIPT [qemu args...]
#   SCRIPT runs with /bin/sh in the guest, cwd = the checkout, env E2E_OUT = results folder.
# env:   E2E_CACHE  kernel + initramfs cache, outside the repository (default ~/.cache/switchscan-e2e)
#        E2E_OUT    results folder (default: a new folder under $E2E_CACHE/runs)
#        E2E_TIMEOUT seconds (default 600)
# exit:  the script's status; 124 timeout; 125 the guest never reported; 126 setup failed.
set -eu
SCRIPT=$(readlink -f "$1"); shift
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CACHE=${E2E_CACHE:-${HOME:-/root}/.cache/switchscan-e2e}
mkdir -p "$CACHE/runs"
OUT=${E2E_OUT:-$(mktemp -d "$CACHE/runs/run.XXXXXX")}
mkdir -p "$OUT"
fail() { echo "guest-vm: $*" >&2; exit 126; }

# Debian packages the guest needs (nothing is downloaded from anywhere else); acl for the
# package scripts' checks.
missing=""
for p in qemu-system-x86 busybox-static kmod udev xz-utils cpio acl; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing="$missing $p"
done
if [ -n "$missing" ]; then
  [ "$(id -u)" = 0 ] || fail "missing packages:$missing (install them as root)"
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null \
    || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null \
    || fail "could not install:$missing"
fi

# The generic kernel (the cloud kernel lacks uinput, 9p and USB HID), unpacked, never installed.
kpkg=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
if [ -z "$kpkg" ]; then
  apt-get update -qq >/dev/null
  kpkg=$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
fi
[ -n "$kpkg" ] || fail "no linux-image package found"
kver=${kpkg#linux-image-}
kernel=$CACHE/vmlinux-$kver
initrd=$CACHE/initrd-$kver.img
if [ ! -s "$kernel" ] || [ ! -s "$initrd" ]; then
  work=$(mktemp -d "$CACHE/build.XXXXXX")
  (cd "$work" && apt-get download -qq "$kpkg" >/dev/null && dpkg-deb -x ./"$kpkg"_*.deb tree) || fail "could not fetch $kpkg"
  depmod -b "$work/tree" "$kver"
  # An uncompressed ELF kernel boots directly (PVH): no firmware, no decompression under emulation.
  vz=$work/tree/boot/vmlinuz-$kver
  start=$(LC_ALL=C grep -abo "$(printf '\3757zXZ')" "$vz" | head -1 | cut -d: -f1)
  tail -c +$((start + 1)) "$vz" | xz -dc > "$work/vmlinux" 2>/dev/null || true
  if [ "$(head -c 4 "$work/vmlinux" | tail -c 3)" = ELF ]; then mv "$work/vmlinux" "$kernel"; else cp "$vz" "$kernel"; fi
  # The initramfs: busybox, the modules for uinput/evdev/9p/virtio/USB HID, and /init.
  rd=$work/rd
  mkdir -p "$rd/bin" "$rd/dev" "$rd/proc" "$rd/sys" "$rd/host" "$rd/lib/modules"
  cp /bin/busybox "$rd/bin/busybox"
  for applet in $(/bin/busybox --list); do [ "$applet" = busybox ] || ln -s busybox "$rd/bin/$applet"; done
  for m in uinput evdev 9pnet_virtio 9p virtio_pci virtio_input xhci_pci usbhid hid_generic; do
    modprobe -d "$work/tree" -S "$kver" --show-depends "$m"
  done | awk '$1 == "insmod" && !seen[$2]++ {print $2}' | while read -r ko; do
    cp "$ko" "$rd/lib/modules/" && basename "$ko" >> "$rd/modules"
  done
  cp "$ROOT/Tests/E2E/guest-init.sh" "$rd/init"
  chmod +x "$rd/init"
  (cd "$rd" && find . | cpio -o -H newc 2>/dev/null) | gzip -1 > "$initrd.part"
  mv "$initrd.part" "$initrd"
  rm -rf "$work"
fi

rm -f "$OUT/.exit"
set +e
timeout -s KILL "${E2E_TIMEOUT:-600}" qemu-system-x86_64 -accel tcg -m 1536 -smp 2 \
  -nodefaults -no-user-config -display none -no-reboot -serial stdio \
  -kernel "$kernel" -initrd "$initrd" \
  -append "console=ttyS0 quiet loglevel=3 panic=-1 e2e.script=$SCRIPT e2e.root=$ROOT e2e.out=$OUT" \
  -virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
  -virtfs local,path="$ROOT",mount_tag=checkout,security_model=none,readonly=on,multidevs=remap \
  -virtfs local,path="$OUT",mount_tag=out,security_model=none,multidevs=remap \
  "$@" < /dev/null
status=$?
set -e
[ $status -eq 137 ] && { echo "guest-vm: timed out" >&2; exit 124; }
[ -f "$OUT/.exit" ] || { echo "guest-vm: the guest never reported (qemu status $status)" >&2; exit 125; }
exit "$(cat "$OUT/.exit")"
