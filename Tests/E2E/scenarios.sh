#!/bin/sh
# The end-to-end scenarios, run inside the guest by run.sh: the real switchscan binary
# against real kernel input devices (uinput through libevdev, udevd running).
# Each scenario prints PASS/FAIL lines; the exit status counts the failures.
OUT=${E2E_OUT:?}
BIN=${SWITCHSCAN:-.build/debug/switchscan}
# The release build when run.sh found it the newer one: the emulated guest runs it several
# times faster.
[ -s "$E2E_OUT/switchscan-bin" ] && BIN=$(cat "$E2E_OUT/switchscan-bin")
BENCH=.build/debug/switchscan-bench
SWITCH=$OUT/uinput-switch
failures=0
checks=0
pass() { echo "PASS $*"; checks=$((checks + 1)); }
fail() { echo "FAIL $*"; failures=$((failures + 1)); checks=$((checks + 1)); }
expect() { # expect FILE PATTERN WHAT
  if grep -q -- "$2" "$1"; then pass "$3"; else fail "$3 (no '$2' in $(basename "$1"))"; sed 's/^/    | /' "$1" | tail -15; fi
}
wait_for() { # wait_for FILE PATTERN SECONDS
  n=0; while ! grep -q -- "$2" "$1" 2>/dev/null; do n=$((n + 1)); [ $n -gt $(($3 * 10)) ] && return 1; sleep 0.1; done
}

/lib/systemd/systemd-udevd --daemon >/dev/null 2>&1 && udevadm trigger --action=add && udevadm settle -t 30
echo "udevd: $(pgrep -c systemd-udevd) running"

# The switch, fed commands through a fifo; it prints its node on creation.
mkfifo /tmp/switch.in
"$SWITCH" "SwitchScan Test XK-3 Switch Interface" 05f3 0232 < /tmp/switch.in > /tmp/switch.out 2>&1 &
exec 3> /tmp/switch.in
say() { echo "$*" >&3; }
wait_count() { # wait_count FILE PATTERN COUNT SECONDS: until PATTERN is on COUNT lines
  n=0
  while :; do
    c=$(grep -c -- "$2" "$1" 2>/dev/null); [ "${c:-0}" -ge "$3" ] && return 0
    n=$((n + 1)); [ $n -gt $(($4 * 10)) ] && return 1; sleep 0.1
  done
}
say create
wait_for /tmp/switch.out /dev/input/event 10 || { fail "uinput switch created"; exit 1; }
NODE=$(grep -m1 /dev/input/event /tmp/switch.out)
udevadm settle -t 10
echo "switch at $NODE"

# The guest's CPUs are emulated in software: an idle vCPU kept polling (the wake-up latency
# request, held by default as root) would take host time from the busy one, so runs here let
# idle CPUs sleep (--allow-deep-idle). The request itself is covered by the unit tests.
start_run() { # start_run LOG ARGS...: waits until switchscan uses the device
  log=$1; shift
  "$BIN" run --output json --rt-priority 0 --no-mlock --allow-deep-idle "$@" > "$OUT/$log.json" 2> "$OUT/$log.err" &
  RUN=$!
  wait_for "$OUT/$log.err" "Using $NODE" 60 || fail "$log: switchscan did not take $NODE"
}

# $E2E_OUT/only may list the scenarios to run (e.g. "3 5"), for working on one.
only() { [ ! -s "$OUT/only" ] || grep -qw "$1" "$OUT/only"; }

# 1. The switch is listed with its profile; presses drive run to enter a group, open the
#    menu and activate an element.
if only 1; then
  "$BIN" devices > "$OUT/devices.txt" 2>&1
  expect "$OUT/devices.txt" "30-vendor-xkeys-switch-interface.json" "1: devices shows the switch with its X-Keys profile section"
  expect "$OUT/devices.txt" "readable: yes" "1: devices says the switch is readable"
  start_run run1 --style manual --duration 60 --device "$NODE"
  # The same session recorded by another reader, to replay below.
  "$BIN" record "$NODE" -o "$OUT/session.evemu" --duration 40 2> "$OUT/record1.err" &
  REC=$!
  wait_for "$OUT/record1.err" "Recording" 30; sleep 0.5
  for c in "press BTN_1" "sleep 300" "press BTN_1" "sleep 300" "press BTN_1" "sleep 300" \
           "press BTN_0" "sleep 300" "press BTN_0" "sleep 300" "press BTN_0"; do say "$c"; done
  wait_for "$OUT/run1.json" '"effect":"activate"' 20
  kill -TERM $RUN; wait $RUN
  expect "$OUT/run1.json" '"effect":"enterGroup","group":"thirdGroup"' "1: presses enter the group {Btn 5, Btn 6}"
  expect "$OUT/run1.json" '"effect":"menuOpen","element":"btn5"' "1: a press opens Btn 5's menu"
  expect "$OUT/run1.json" '"effect":"activate","element":"btn5"' "1: a press on Tap activates Btn 5"
  kill -TERM $REC 2>/dev/null; wait $REC
  # Replaying the recorded session reproduces the same effects (times aside).
  "$BIN" replay "$OUT/session.evemu" --style manual > "$OUT/replay1.json" 2> "$OUT/replay1.err"
  effects() { grep -o '"effect":"[A-Za-z]*"\(,"[a-z]*":"[^"]*"\)\?' "$1"; }
  if [ -s "$OUT/replay1.json" ] && [ "$(effects "$OUT/run1.json")" = "$(effects "$OUT/replay1.json")" ]; then
    pass "1: replaying the recorded session reproduces the same effects"
  else
    fail "1: replaying the recorded session reproduces the same effects"
    effects "$OUT/run1.json" > "$OUT/run1.effects"; effects "$OUT/replay1.json" > "$OUT/replay1.effects"
    diff "$OUT/run1.effects" "$OUT/replay1.effects" | sed 's/^/    | /'; sed 's/^/    | /' "$OUT/replay1.err"
  fi
fi

# 3. Hotplug: unplugged mid-scan, scanning goes on; plugged back, the switch works again.
if only 3; then
  start_run run3 --style manual --duration 120
  say "press BTN_1"; wait_for "$OUT/run3.json" '"item":"btn1"' 20
  say destroy; wait_for "$OUT/run3.err" "unplugged" 20
  say create; udevadm settle -t 10
  NODE=$(grep /dev/input/event /tmp/switch.out | tail -1)
  wait_for "$OUT/run3.err" "connected; using it" 30
  say "press BTN_1"; wait_for "$OUT/run3.json" '"item":"btn2"' 20
  kill -TERM $RUN 2>/dev/null; wait $RUN; echo "run (hotplug) exited with $?" >> "$OUT/run3.err"
  expect "$OUT/run3.err" "unplugged. Scanning goes on" "3: unplugging is reported and scanning goes on"
  expect "$OUT/run3.err" "connected; using it" "3: the replugged switch is found again with its profile"
  expect "$OUT/run3.json" '"item":"btn2"' "3: the replugged switch drives the scan"
fi

# 4. SYN_DROPPED: the engine is stopped while the kernel buffer overflows; the select that
#    was held is released during the overflow; after the resync there is no phantom press.
if only 4; then
  start_run run4 --style manual --duration 300 --device "$NODE"
  say "down BTN_0"; wait_for "$OUT/run4.json" '"effect":"enterGroup"' 20
  kill -STOP $RUN
  say "flood 3000 KEY_Z"; say "up BTN_0"; say "flood 3000 KEY_Z"; say "echo flooded4"
  # The next press only once the floods are over and switchscan has read what was left:
  # a press made while events are being lost is, by design, not acted on.
  wait_for /tmp/switch.out flooded4 30
  kill -CONT $RUN
  wait_for "$OUT/run4.err" "events were lost" 30
  expect "$OUT/run4.err" "events were lost" "4: the lost events are said"
  say "press BTN_1"; wait_for "$OUT/run4.json" '"item":"test2"' 20
  kill -TERM $RUN; wait $RUN
  if [ "$(grep -c '"effect":"enterGroup"' "$OUT/run4.json")" = 1 ] && ! grep -q menuOpen "$OUT/run4.json"; then
    pass "4: no phantom press after the overflow"
  else
    fail "4: no phantom press after the overflow"; sed 's/^/    | /' "$OUT/run4.json"
  fi
  expect "$OUT/run4.json" '"item":"test2"' "4: after the resync the next press works"
fi

# 5. Grab: while run --grab holds the switch, another reader sees nothing; after SIGTERM it
#    sees the presses again.
if only 5; then
  start_run run5 --style manual --duration 60 --grab --device "$NODE"
  sleep 1
  "$BIN" record "$NODE" -o "$OUT/grabbed.evemu" --duration 6 2> "$OUT/record5.err" &
  REC=$!
  wait_for "$OUT/record5.err" "Recording" 20; sleep 0.5; say "press BTN_1"; say "sleep 200"; say "press BTN_1"
  wait_for "$OUT/run5.json" '"item":"btn2"' 20
  wait $REC
  kill -TERM $RUN; wait $RUN; echo "run --grab exited with $?" >> "$OUT/run5.err"
  "$BIN" record "$NODE" -o "$OUT/released.evemu" --duration 6 2> "$OUT/record5b.err" &
  REC=$!
  wait_for "$OUT/record5b.err" "Recording" 20; sleep 0.5; say "press BTN_1"
  wait $REC
  if grep -q '^E:' "$OUT/grabbed.evemu"; then fail "5: a grabbed switch is not seen by another reader"; else pass "5: a grabbed switch is not seen by another reader"; fi
  expect "$OUT/released.evemu" '^E: .* 0001 0101 1' "5: after SIGTERM the grab is released and others see the switch"
  expect "$OUT/run5.json" '"item":"btn1"' "5: the grabbing run itself got the presses"
fi

# 6. Permissions: without the input group the error names the fix; with it, it works.
if only 6; then
  input_gid=$(getent group input | cut -d: -f3)
  setpriv --reuid=65534 --regid=65534 --clear-groups "$BIN" devices > "$OUT/devices-nobody.txt" 2>&1
  expect "$OUT/devices-nobody.txt" "Permission denied (EACCES). Hint: add your user to the 'input' group" "6: without the input group, the error names the fix"
  setpriv --reuid=65534 --regid=65534 --groups="$input_gid" "$BIN" devices > "$OUT/devices-input.txt" 2>&1
  expect "$OUT/devices-input.txt" "readable: yes" "6: with the input group, the switch is readable"
  setpriv --reuid=65534 --regid=65534 --groups="$input_gid" "$BIN" run --output json --rt-priority 0 --no-mlock --allow-deep-idle \
    --style manual --duration 60 --device "$NODE" > "$OUT/run6.json" 2> "$OUT/run6.err" &
  RUN=$!
  wait_for "$OUT/run6.err" "Using $NODE" 60
  say "press BTN_1"; wait_for "$OUT/run6.json" '"item":"btn1"' 20
  kill -TERM $RUN 2>/dev/null; wait $RUN
  expect "$OUT/run6.json" '"item":"btn1"' "6: with the input group, an ordinary user scans with the switch"
fi

# 2. qemu's USB keyboard (a real HID device through udevd), typed from the host over QMP:
#    Enter (next) three times, then Space (select) three times activates Btn 5.
if only 2; then
  KBD=$("$BIN" devices 2>/dev/null | awk '/QEMU USB Keyboard/ {print $1; exit}')
  if [ -z "$KBD" ]; then
    fail "2: qemu's USB keyboard is listed by devices"
  else
    pass "2: qemu's USB keyboard is listed by devices ($KBD)"
    "$BIN" run --output json --rt-priority 0 --no-mlock --allow-deep-idle --style manual --duration 120 --device "$KBD" > "$OUT/run2.json" 2> "$OUT/run2.err" &
    RUN=$!
    wait_for "$OUT/run2.err" "Using $KBD" 60
    touch "$OUT/keys-ready"
    wait_for "$OUT/run2.json" '"effect":"activate"' 90
    kill -TERM $RUN 2>/dev/null; wait $RUN
    expect "$OUT/run2.json" '"effect":"enterGroup","group":"thirdGroup"' "2: keys typed on the USB keyboard enter the group"
    expect "$OUT/run2.json" '"effect":"activate","element":"btn5"' "2: and activate Btn 5"
  fi
fi

# 7. Latency: from the kernel's event timestamp to the effect leaving the engine, over a few
#    hundred presses (printed; emulation is slow, so not asserted tightly).
if only 7; then
  "$BENCH" input --device "$NODE" --presses 200 --rt-priority 0 --allow-deep-idle --json > "$OUT/latency.json" 2> "$OUT/latency.err" &
  B=$!
  wait_for "$OUT/latency.err" "Press the" 60
  i=0; while [ $i -lt 200 ]; do say "press BTN_1"; say "sleep 20"; i=$((i + 1)); done
  wait $B
  if grep -q '"p99_us"' "$OUT/latency.json"; then
    pass "7: kernel timestamp to effect: $(tail -1 "$OUT/latency.json")"
  else
    fail "7: latency measured"; sed 's/^/    | /' "$OUT/latency.err"
  fi
fi

# 8. The uinput pointer: a point-mode tap clicks through a virtual absolute pointer made with
#    uinput, its ABS_X/ABS_Y set to the tapped point, read back by another reader (libevdev).
if only 8; then
  # Sweeps that go on (loops): a guest slowed by a busy host presses late, and the first
  # press must still fix x rather than start a scan that ran out.
  echo '{"mode":"point","glideSpeed":200,"loops":100,"tapBehavior":"autoTap","autoTapTime":0.3}' > "$OUT/point.json"
  start_run run8 --style manual --duration 60 --device "$NODE" --settings "$OUT/point.json" --pointer uinput --screen 1000x700
  wait_for "$OUT/run8.err" "Pointer: uinput" 30 || fail "8: run made the uinput pointer"
  PNODE=$(sed -n 's/.*Pointer: uinput (\(\/dev\/input\/event[0-9]*\)).*/\1/p' "$OUT/run8.err" | head -1)
  udevadm settle -t 10
  "$BIN" record "$PNODE" -o "$OUT/pointer.evemu" --duration 60 2> "$OUT/record8.err" &
  REC=$!
  wait_for "$OUT/record8.err" "Recording" 20; sleep 1
  # select fixes x, select fixes y; the auto-tap then taps (a menu's Tap, if it opened one).
  say "press BTN_0"; say "sleep 1200"; say "press BTN_0"
  wait_for "$OUT/run8.json" '"effect":"tap"' 15 || { say "press BTN_0"; wait_for "$OUT/run8.json" '"effect":"tap"' 15; }
  # TERM, not INT: a script's background jobs ignore SIGINT, and record honours that.
  sleep 1; kill -TERM $REC 2>/dev/null; wait $REC
  kill -TERM $RUN; wait $RUN
  TAP=$(grep -m1 '"effect":"tap"' "$OUT/run8.json")
  X=$(echo "$TAP" | sed 's/.*"x":\([0-9.]*\).*/\1/'); Y=$(echo "$TAP" | sed 's/.*"y":\([0-9.]*\).*/\1/')
  X=$(printf '%.0f' "$X"); Y=$(printf '%.0f' "$Y")
  expect "$OUT/record8.err" "SwitchScan pointer" "8: the virtual pointer is an input device of its own"
  expect "$OUT/pointer.evemu" "^E: .* 0003 0000 $X " "8: ABS_X is the tapped x ($X)"
  expect "$OUT/pointer.evemu" "^E: .* 0003 0001 $Y " "8: ABS_Y is the tapped y ($Y)"
  expect "$OUT/pointer.evemu" '^E: .* 0001 0110 1 ' "8: the left button goes down"
  expect "$OUT/pointer.evemu" '^E: .* 0001 0110 0 ' "8: and up"
fi

# 9. The Keys page through uinput: with two switches (BTN_1 next, BTN_0 select) a button's
#    menu leads through Settings and more to the screen menu, its Keys page sends Escape,
#    then Enter, through a virtual keyboard of its own, read back by another reader.
if only 9; then
  start_run run9 --style manual --duration 60 --device "$NODE" --pointer uinput --screen 1000x700
  wait_for "$OUT/run9.err" "Keys: uinput" 30 || fail "9: run made the uinput keyboard"
  KNODE=$(sed -n 's/.*Keys: uinput (\(\/dev\/input\/event[0-9]*\)).*/\1/p' "$OUT/run9.err" | head -1)
  udevadm settle -t 10
  "$BIN" record "$KNODE" -o "$OUT/keys.evemu" --duration 20 2> "$OUT/record9.err" &
  REC=$!
  wait_for "$OUT/record9.err" "Recording" 20; sleep 1
  # Btn 1; its menu; next three times (Point mode, Gestures): Settings and more; the screen
  # menu (Keyboard first); next three times: Keys; the page on Escape; Escape sent; next:
  # Enter; Enter sent.
  for b in 1 0 1 1 1 0 1 1 1 0 0 1 0; do say "press BTN_$b"; say "sleep 300"; done
  wait_for "$OUT/run9.json" '"key":"enter"' 20
  sleep 1; kill -TERM $REC 2>/dev/null; wait $REC
  kill -TERM $RUN; wait $RUN
  expect "$OUT/record9.err" "SwitchScan keys" "9: the virtual keyboard is an input device of its own"
  expect "$OUT/run9.json" '"effect":"key","key":"escape"' "9: the Keys page sent Escape"
  expect "$OUT/keys.evemu" '^E: .* 0001 0001 1 ' "9: KEY_ESC goes down"
  expect "$OUT/keys.evemu" '^E: .* 0001 0001 0 ' "9: and up"
  expect "$OUT/keys.evemu" '^E: .* 0001 001c 1 ' "9: then KEY_ENTER"
fi

# 10. Typing through uinput: the screen menu's Keyboard opens the scanning keyboard, and a
#     letter key types through the virtual keyboard (Shift held for the sentence's capital),
#     read back by another reader, and named in the stream only as a secret key; that
#     keyboard is never taken for a switch.
if only 10; then
  start_run run10 --style manual --duration 60 --device "$NODE" --pointer uinput --screen 1000x700
  wait_for "$OUT/run10.err" "Keys: uinput" 30 || fail "10: run made the uinput keyboard"
  KNODE=$(sed -n 's/.*Keys: uinput (\(\/dev\/input\/event[0-9]*\)).*/\1/p' "$OUT/run10.err" | head -1)
  udevadm settle -t 10
  "$BIN" devices > "$OUT/devices10.txt" 2>&1
  # Stopped once E is typed, however slow the guest.
  "$BIN" record "$KNODE" -o "$OUT/typed.evemu" --duration 60 2> "$OUT/record10.err" &
  REC=$!
  wait_for "$OUT/record10.err" "Recording" 20; sleep 1
  # Btn 1; its menu; next three times (Point mode, Gestures): Settings and more; the screen
  # menu on Keyboard: opened. Once its predictions are made (the scan then starts at them):
  # next, the first row of letters; into it, on e; e typed.
  for b in 1 0 1 1 1 0 0; do say "press BTN_$b"; say "sleep 300"; done
  wait_for "$OUT/run10.json" '"id":"prediction1"' 60 || fail "10: the keyboard's predictions were made"
  sleep 0.5
  for b in 1 0 0; do say "press BTN_$b"; say "sleep 300"; done
  wait_for "$OUT/run10.json" '"effect":"typeText"' 40
  sleep 1; kill -TERM $REC 2>/dev/null; wait $REC
  kill -TERM $RUN; wait $RUN
  expect "$OUT/run10.json" '"effect":"keyboard"' "10: the screen menu opened the keyboard"
  # A keyboard for whatever has the focus may be typing a password: the stream shows bullets.
  expect "$OUT/run10.json" '"effect":"typeText","text":"•","secret":true' "10: a key typed, not shown in the stream"
  # Nor a capital by itself: whatever has the focus may be a password or a command.
  if grep -q '^E: .* 0001 002a 1 ' "$OUT/typed.evemu"; then fail "10: no Shift for an unknown focus"; else pass "10: no Shift for an unknown focus"; fi
  expect "$OUT/typed.evemu" '^E: .* 0001 0012 1 ' "10: KEY_E goes down"
  expect "$OUT/typed.evemu" '^E: .* 0001 0012 0 ' "10: and up"
  expect "$OUT/devices10.txt" 'made by SwitchScan' "10: devices marks its own keyboard"
fi

# 11. Without --device: run takes the switch by its profile, and never its own virtual
#     pointer and keyboard. The Keys page's Enter, sent through that keyboard, is not read
#     back as a select press (which would select what is highlighted).
if only 11; then
  # (The test switch's own name starts with "SwitchScan Test": it is a switch.)
  start_run run11 --style manual --duration 60 --pointer uinput --screen 1000x700
  wait_for "$OUT/run11.err" "Keys: uinput" 30 || fail "11: run made the uinput keyboard"
  sleep 1
  # As in 9: Escape, then Enter, from the Keys page.
  for b in 1 0 1 1 1 0 1 1 1 0 0 1 0; do say "press BTN_$b"; say "sleep 300"; done
  wait_for "$OUT/run11.json" '"key":"enter"' 20
  sleep 2
  kill -TERM $RUN; wait $RUN
  expect "$OUT/run11.json" '"effect":"key","key":"enter"' "11: the Keys page sent Enter"
  if grep -Eq "Using .*\(SwitchScan (keys|pointer)\)" "$OUT/run11.err"; then fail "11: run took its own device for a switch"; sed 's/^/    | /' "$OUT/run11.err"
  else pass "11: its own pointer and keyboard are not switches"; fi
  # Nothing is selected after Enter: no menu, group or activation follows it.
  AFTER=$(sed -n '/"key":"enter"/,$p' "$OUT/run11.json" | grep -c '"effect":"\(menuOpen\|enterGroup\|activate\|key\)"')
  if [ "$AFTER" -le 1 ]; then pass "11: Enter was not read back as a press"
  else fail "11: $AFTER effects after Enter: it came back as a press"; sed -n '/"key":"enter"/,$p' "$OUT/run11.json" | sed 's/^/    | /' | head; fi
fi

# 12. setup with the switch alone (no terminal): a key held from the start and a key that
#     repeats are refused; BTN_1 is assigned to select and BTN_0 to next (the X-Keys profile
#     has them the other way round), each pressed twice; the select switch finishes and
#     accepts the two-switch style. A following run scans with them; --list shows them,
#     --reset removes them, and a termination signal (as Ctrl-C; a background job here
#     ignores SIGINT itself) stops a setup with nothing written. At a terminal (script's
#     pseudo-terminal), the terminal's keys answer the questions too, and the practice run
#     offered at the end scans with the new switch.
if only 12; then
  H=$OUT/home12; mkdir -p "$H"
  LOCAL=$H/.config/switchscan/devices/90-local.json
  setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$H" "$BIN" setup --no-speech < /dev/null > "$OUT/setup12-nobody.txt" 2>&1
  expect "$OUT/setup12-nobody.txt" "Permission denied (EACCES). Hint: add your user to the 'input' group" "12: without permission to read the devices, setup says how to get it"
  say "down KEY_Z"; sleep 0.3
  HOME=$H "$BIN" setup --no-speech --interval 3 --device "$NODE" < /dev/null > "$OUT/setup12.out" 2> "$OUT/setup12.err" &
  SETUP=$!
  wait_for "$OUT/setup12.out" "Press the switch you want to use to select" 30 || fail "12: setup asks for the select switch"
  wait_for "$OUT/setup12.out" "KEY_Z .* is held down" 10
  say "repeat KEY_Z 3"; say "up KEY_Z"
  say "down BTN_0"; wait_for "$OUT/setup12.out" "Heard BTN_0" 10
  say "repeat BTN_0 3"; say "up BTN_0"; wait_for "$OUT/setup12.out" "BTN_0 .* is repeating" 10
  for b in 1 1 0 0; do say "sleep 300"; say "press BTN_$b"; done
  wait_for "$OUT/setup12.out" "Press a switch for another action" 20
  say "sleep 300"; say "press BTN_1"; wait_for "$OUT/setup12.out" "Use this?" 20
  sleep 0.6; say "press BTN_1"
  n=0; while kill -0 $SETUP 2>/dev/null && [ $n -lt 200 ]; do sleep 0.1; n=$((n + 1)); done
  kill -TERM $SETUP 2>/dev/null; wait $SETUP; echo "setup exited with $?" >> "$OUT/setup12.err"
  cat "$OUT/setup12.out" "$OUT/setup12.err" | sed 's/^/    setup | /'
  sed 's/^/    profile | /' "$LOCAL" 2>/dev/null
  expect "$OUT/setup12.out" "KEY_Z on SwitchScan Test XK-3 Switch Interface is held down" "12: a key held from the start is refused"
  expect "$OUT/setup12.out" "BTN_0 on SwitchScan Test XK-3 Switch Interface is repeating" "12: a repeating key is refused"
  expect "$OUT/setup12.out" "BTN_1 on SwitchScan Test XK-3 Switch Interface selects" "12: the select switch is confirmed"
  expect "$OUT/setup12.err" "setup exited with 0" "12: setup finishes"
  expect "$LOCAL" '"BTN_1": "select", "BTN_0": "next"' "12: the local profile assigns BTN_1 select, BTN_0 next"
  if grep -q KEY_Z "$LOCAL" 2>/dev/null; then fail "12: the held key is not in the profile"; else pass "12: the held key is not in the profile"; fi
  expect "$H/.config/switchscan/settings.json" '"style": "manual"' "12: the two-switch style is saved once accepted"
  HOME=$H "$BIN" setup --list > "$OUT/setup12-list.txt" 2>&1
  expect "$OUT/setup12-list.txt" "BTN_1 select, BTN_0 next" "12: setup --list shows them"
  HOME=$H "$BIN" devices > "$OUT/devices12.txt" 2>&1
  expect "$OUT/devices12.txt" "switchscan setup: SwitchScan Test XK-3" "12: devices shows the setup section on the switch"
  HOME=$H "$BIN" run --output json --rt-priority 0 --no-mlock --allow-deep-idle --duration 60 --device "$NODE" > "$OUT/run12.json" 2> "$OUT/run12.err" &
  RUN=$!
  wait_for "$OUT/run12.err" "Using $NODE" 60 || fail "12: run did not take $NODE"
  say "press BTN_0"; wait_for "$OUT/run12.json" '"item":"btn1"' 20
  say "sleep 300"; say "press BTN_1"; wait_for "$OUT/run12.json" '"effect":"menuOpen"' 20
  kill -TERM $RUN; wait $RUN
  expect "$OUT/run12.json" '"item":"btn1"' "12: run: BTN_0 is next now"
  expect "$OUT/run12.json" '"effect":"menuOpen","element":"btn1"' "12: run: BTN_1 selects now"
  HOME=$H "$BIN" setup --reset > "$OUT/setup12-reset.txt" 2>&1
  expect "$OUT/setup12-reset.txt" "Removed the switches assigned with setup" "12: setup --reset removes them"
  if [ -e "$LOCAL" ]; then fail "12: the local profile is gone after --reset"; else pass "12: the local profile is gone after --reset"; fi
  # All devices (qemu's keyboard too): the switch unplugged before it is chosen, and plugged
  # back in, is used again.
  HOME=$H "$BIN" setup --no-speech < /dev/null > "$OUT/setup12b.out" 2> "$OUT/setup12b.err" &
  SETUP=$!
  wait_for "$OUT/setup12b.out" "Press the switch" 30
  say destroy; wait_for "$OUT/setup12b.out" "was unplugged; setup goes on" 20
  say create; udevadm settle -t 10; NODE=$(grep /dev/input/event /tmp/switch.out | tail -1)
  wait_for "$OUT/setup12b.out" "is connected" 20
  say "press BTN_1"; wait_for "$OUT/setup12b.out" "Heard BTN_1" 10
  kill -TERM $SETUP; wait $SETUP
  sed 's/^/    setup (hotplug) | /' "$OUT/setup12b.out" "$OUT/setup12b.err"
  expect "$OUT/setup12b.out" "was unplugged; setup goes on" "12: a switch unplugged during setup is said, and setup goes on"
  expect "$OUT/setup12b.out" "is connected: its switches can be pressed now" "12: plugged back in, it is used again"
  expect "$OUT/setup12b.err" "Setup stopped; nothing was written." "12: a signal stops setup with a message"
  if [ -e "$LOCAL" ]; then fail "12: nothing is written after the signal"; else pass "12: nothing is written after the signal"; fi
  mkfifo /tmp/tty12.in
  script -qfec "HOME=$H $BIN setup --no-speech --device $NODE" "$OUT/setup12c.txt" < /tmp/tty12.in > /dev/null 2>&1 &
  SETUP=$!
  exec 4> /tmp/tty12.in
  wait_for "$OUT/setup12c.txt" "Press the switch" 30
  for b in 1 1 1; do say "sleep 300"; say "press BTN_$b"; done
  wait_for "$OUT/setup12c.txt" "Press a switch for another action" 20
  say "sleep 300"; say "press BTN_1"; wait_for "$OUT/setup12c.txt" "then a short trial" 20
  # One switch: the reaction-time practice comes first; the terminal's s skips it.
  sleep 0.3; printf s >&4; wait_for "$OUT/setup12c.txt" "Use this?" 20
  sleep 0.6; printf y >&4; wait_for "$OUT/setup12c.txt" "Practise now" 20
  sleep 0.6; printf y >&4; wait_for "$OUT/setup12c.txt" "Using $NODE" 30
  sleep 1; say "press BTN_1"; sleep 1; printf q >&4
  n=0; while kill -0 $SETUP 2>/dev/null && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
  kill -TERM $SETUP 2>/dev/null; wait $SETUP; echo "setup at a terminal exited with $?" >> "$OUT/setup12c.txt"
  exec 4>&-
  sed 's/^/    setup (terminal) | /' "$OUT/setup12c.txt"
  expect "$OUT/setup12c.txt" "The practice is skipped" "12: at a terminal, s skips the reaction-time practice"
  expect "$H/.config/switchscan/settings.json" '"autoScanInterval": 1.5' "12: at a terminal, y accepts the proposed style"
  expect "$H/.config/switchscan/settings.json" '"style": "auto"' "12: one switch: auto scanning"
  expect "$OUT/setup12c.txt" "Using $NODE" "12: the practice run scans with the switch"
  expect "$OUT/setup12c.txt" "exited with 0" "12: at a terminal, setup and its practice run end well"
  # With the switch alone (no terminal), the practice measures the person: each target
  # pressed once it is shown, the trial's star pressed when it lights, Yes taken while it
  # is highlighted first. What it saves is the timing with adaptation on.
  H=$OUT/home12d; mkdir -p "$H"; F=$OUT/setup12d.out
  HOME=$H "$BIN" setup --no-speech --interval 3 --device "$NODE" < /dev/null > "$F" 2>&1 &
  SETUP=$!
  wait_for "$F" "Press the switch" 30
  for b in 1 1 1; do say "sleep 300"; say "press BTN_$b"; done
  wait_for "$F" "Press a switch for another action" 20
  say "sleep 300"; say "press BTN_1"; wait_for "$F" "then a short trial" 20
  for k in 1 2 3 4 5 6 7 8 9 10; do
    wait_count "$F" "now: target" $k 15 && { say "sleep 300"; say "press BTN_1"; }
  done
  wait_for "$F" "Now a trial\|too few" 20
  for r in 1 2 3; do
    c=$(grep -c '\[★\]' "$F"); wait_count "$F" '\[★\]' $((c + 1)) 20 && say "press BTN_1"
    wait_count "$F" 'The star\.\|That was\|went by twice' $r 20
  done
  wait_for "$F" "Use this?" 20; say "sleep 800"; say "press BTN_1"
  wait_for "$F" "Setup is done" 20
  n=0; while kill -0 $SETUP 2>/dev/null && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
  kill -TERM $SETUP 2>/dev/null; wait $SETUP; echo "setup exited with $?" >> "$F"
  sed 's/^/    setup (practice) | /' "$F"
  expect "$F" "Your reaction time is" "12: one switch: the practice measures the reaction time"
  expect "$F" "The trial: . of 3 stars selected" "12: a trial runs at the interval proposed"
  expect "$H/.config/switchscan/settings.json" '"adaptTiming": "on"' "12: the measured timing is kept with adaptation on"
  expect "$H/.config/switchscan/settings.json" '"reactionTime": [0-9]' "12: the reaction time measured is kept for cost"
  expect "$F" "setup exited with 0" "12: setup with the practice ends well"
fi

# 13. Who may read what: the packaged udev rule tags the X-Keys switch for the seat's user
#     (uaccess) and not qemu's USB keyboard; /dev/uinput goes to the 'uinput' group alone;
#     run leaves that keyboard alone unless it is named; 'devices grant' writes a rule for
#     that one keyboard, which then is tagged; removing the package's rule (postrm) takes
#     the tag away at once. /etc is the host's, read-only: the guest gets its own rules
#     folder and a group file with 'uinput' in it.
if only 13; then
  tags() { udevadm info --query=property --name="$1" 2>/dev/null | sed -n 's/^CURRENT_TAGS=//p'; }
  mount -t tmpfs tmpfs /etc/udev/rules.d
  if ! getent group uinput >/dev/null; then
    cp /etc/group /tmp/group13; echo "uinput:x:990:" >> /tmp/group13; mount --bind /tmp/group13 /etc/group
  fi
  mkdir -p /run/udev/rules.d
  cp packaging/70-switchscan.rules /run/udev/rules.d/70-switchscan.rules
  udevadm control --reload
  udevadm trigger --action=change --subsystem-match=input --subsystem-match=misc; udevadm settle -t 20
  KBD13=$("$BIN" devices 2>/dev/null | awk '/QEMU USB Keyboard/ {print $1; exit}')
  case "$(tags "$NODE")" in *:uaccess:*) pass "13: the rule tags the X-Keys switch for the seat's user";;
    *) fail "13: the X-Keys switch has no uaccess tag ($(tags "$NODE"))";; esac
  case "$(tags "$KBD13")" in *:uaccess:*) fail "13: qemu's USB keyboard is tagged uaccess";;
    *) pass "13: no keyboard is tagged ($KBD13: $(tags "$KBD13"))";; esac
  [ "$(stat -c '%G %a' /dev/uinput)" = "uinput 660" ] && pass "13: /dev/uinput is for the uinput group alone"     || fail "13: /dev/uinput is $(stat -c '%U:%G %a' /dev/uinput)"
  start_run run13 --style manual --duration 20
  kill -TERM $RUN 2>/dev/null; wait $RUN
  if grep -q "Using $KBD13" "$OUT/run13.err"; then fail "13: run took the unnamed keyboard for a switch"; sed 's/^/    | /' "$OUT/run13.err"
  else pass "13: run leaves the unnamed keyboard alone and takes the named switch"; fi
  "$BIN" devices > "$OUT/devices13.txt" 2>&1
  expect "$OUT/devices13.txt" "not a switch: a keyboard or mouse is a switch only when named" "13: devices says why the keyboard is not a switch"
  "$BIN" devices grant "$KBD13" --yes > "$OUT/grant13.txt" 2>&1
  expect "$OUT/grant13.txt" "Installed /etc/udev/rules.d/71-switchscan-0627-0001" "13: devices grant installs a rule for that keyboard"
  case "$(tags "$KBD13")" in *:uaccess:*) pass "13: the granted keyboard is tagged for the seat's user";;
    *) fail "13: the granted keyboard has no uaccess tag ($(tags "$KBD13"))"; cat /etc/udev/rules.d/71-switchscan-* | sed 's/^/    | /';; esac
  # An earlier version's rule tagged every keyboard and /dev/uinput, and logind wrote the
  # seat user's ACL entries on them; installing over it takes those off where no rule tags
  # the node now, and the static uinput tag too (here nobody, 65534, stands for that user).
  mkdir -p /run/udev/static_node-tags/uaccess
  ln -sf ../../../../dev/uinput /run/udev/static_node-tags/uaccess/uinput
  for n in "$KBD13" "$NODE" /dev/uinput; do setfacl -m u:65534:rw "$n"; done
  rm -f /etc/udev/rules.d/71-switchscan-*; udevadm control --reload
  sh packaging/postinst configure 0.1 > "$OUT/postinst13.txt" 2>&1
  if getfacl -cpn "$KBD13" /dev/uinput 2>/dev/null | grep -q '^user:65534:'; then fail "13: postinst leaves an earlier grant on $KBD13 or /dev/uinput"; getfacl -cpn "$KBD13" /dev/uinput | sed 's/^/    | /'
  else pass "13: postinst takes off what an earlier rule gave on untagged nodes"; fi
  getfacl -cpn "$NODE" 2>/dev/null | grep -q '^user:65534:' && pass "13: a node the rule still tags keeps its entry" || fail "13: the tagged switch lost its entry"
  [ -e /run/udev/static_node-tags/uaccess/uinput ] && fail "13: the static uinput tag stays" || pass "13: the static uinput tag is gone"
  # The package's rule removed: an empty file of its name masks it (the host may have the
  # package installed, and the guest sees the host's /usr/lib).
  : > /run/udev/rules.d/70-switchscan.rules
  sh packaging/postrm remove; udevadm settle -t 20
  getfacl -cpn "$NODE" 2>/dev/null | grep -q '^user:65534:' && fail "13: postrm leaves the switch's entry" || pass "13: postrm takes the switch's entry off"
  case "$(tags "$NODE")" in *:uaccess:*) fail "13: the switch keeps its tag after the rule's removal";;
    *) pass "13: postrm takes the rule's grant away at once";; esac
  rm -f /etc/udev/rules.d/71-switchscan-* /run/udev/rules.d/70-switchscan.rules; umount /etc/udev/rules.d
  udevadm control --reload; udevadm trigger --action=change --subsystem-match=input; udevadm settle -t 20
fi

say destroy
exec 3>&-
echo "e2e: $failures of $checks checks failed"
[ $checks -gt 0 ] || { echo "e2e: no check ran"; exit 1; }
exit $failures
