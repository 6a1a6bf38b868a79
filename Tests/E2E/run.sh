#!/bin/sh
# End-to-end tests of real switch input: builds the uinput helper and switchscan on the host,
# boots the guest (guest-vm.sh) and runs scenarios.sh there. Prints every result; the exit
# status is the number of failed checks (or the guest harness's own failure status).
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
CACHE=${E2E_CACHE:-${HOME:-/root}/.cache/switchscan-e2e}
mkdir -p "$CACHE/runs"
OUT=$(mktemp -d "$CACHE/runs/run.XXXXXX")
[ -z "${E2E_ONLY:-}" ] || echo "$E2E_ONLY" > "$OUT/only"
swift build --product switchscan >/dev/null
swift build --product switchscan-bench >/dev/null
# A release build newer than the debug one (the package's, scripts/package-deb.sh, which CI
# makes) runs in the guest.
if [ -x .build-release/release/switchscan ] && [ .build-release/release/switchscan -nt .build/debug/switchscan ]; then
    echo .build-release/release/switchscan > "$OUT/switchscan-bin"
fi
cc -O1 -Wall -o "$OUT/uinput-switch" Tests/E2E/uinput-switch.c $(pkg-config --cflags --libs libevdev)
# Scenario 2 types on qemu's USB keyboard from here, once the guest says it is ready.
QMP=$CACHE/qmp-$$.sock
python3 Tests/E2E/qmp-keys.py "$QMP" "$OUT/keys-ready" ret ret ret spc spc spc > "$OUT/qmp-keys.log" 2>&1 &
KEYS=$!
set +e
E2E_OUT=$OUT SWITCHSCAN="$ROOT/.build/debug/switchscan" sh Tests/E2E/guest-vm.sh Tests/E2E/scenarios.sh \
  -device qemu-xhci,id=xhci -device usb-kbd,bus=xhci.0 -qmp "unix:$QMP,server=on,wait=off"
status=$?
set -e
kill $KEYS 2>/dev/null || true
rm -f "$QMP"
echo "end-to-end results are in $OUT"
exit $status
