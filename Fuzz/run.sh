#!/bin/sh
# Builds the libFuzzer targets (Fuzz/Sources) with AddressSanitizer and runs each for
# SECONDS (default 12), seeded from the bundled files and Fuzz/seeds/TARGET (numbers at
# the edges of their range), with its dictionary (Fuzz/dictionaries/TARGET.dict: such
# numbers, separators and the format's own words, which random bytes would take long to hit). A crash, a leak of a sanitizer's
# kind or a timeout fails the run; its input is saved under Fuzz/crashes/TARGET/ and
# belongs, once fixed, in Tests/Fixtures/fuzz/TARGET/ as a regression case.
#   sh Fuzz/run.sh [SECONDS] [TARGET…]
#   sh Fuzz/run.sh build      (the targets built, none run)
set -eu
cd "$(dirname "$0")"
swift build -c debug --scratch-path ../.build-fuzz -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library >/dev/null
[ "${1:-}" = build ] && exit 0
seconds=${1:-12}
[ $# -gt 0 ] && shift
targets=${*:-FuzzLayout FuzzSettings FuzzEvents FuzzEvemu FuzzProfile FuzzWords FuzzTerminalText FuzzSettingsWriter}
bin=$(swift build -c debug --scratch-path ../.build-fuzz --show-bin-path)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The settings table, a static built once, is held through Swift's tagged enum pointers,
# which LeakSanitizer cannot follow: not a leak.
printf 'leak:SettingsV5table_WZ\n' > "$work/lsan.supp"
export LSAN_OPTIONS="suppressions=$work/lsan.supp"
# Each target runs on one core: two at a time on a two-core machine, more on more.
jobs=$(nproc 2>/dev/null || echo 1)
prepare() {
    target=$1 corpus="$work/$1"
    mkdir -p "$corpus" "crashes/$target"
    case $target in
        FuzzLayout) cp ../Layouts/*.json "$corpus" ;;
        FuzzSettings) printf '%s' '{"autoScanInterval": 0.5, "loops": 3, "style": "step", "speech": true, "highlightColor": "#ff8c00"}' > "$corpus/settings.json" ;;
        FuzzEvents) cp ../Examples/*.events "$corpus" ;;
        FuzzEvemu) cp ../Tests/Fixtures/*.evemu "$corpus" ;;
        FuzzProfile) cp ../Devices/*.json "$corpus" ;;
        # The start of the English list (words) and its end (pairs), and a small one: short,
        # so that each run is quick and the dictionary's numbers get tried in seconds.
        FuzzWords) head -20 ../Words/en.words > "$corpus/words.words"; tail -20 ../Words/en.words > "$corpus/pairs.words"
            printf '# small\n9 the\n5 London\n3 of the\n2 I am\n' > "$corpus/small.words" ;;
        FuzzTerminalText) printf 'A\033]0;title\007B\342\200\256C\n\302\233x \342\200\250 caf\303\251' > "$corpus/hostile.txt" ;;
        # Writes, stray copies, hand edits, read-only, links: three bytes an operation.
        FuzzSettingsWriter) printf '\000\001\002\002\005\020\004\000\000\000\003\001\005\001\000\001\007\004' > "$corpus/ops" ;;
    esac
    # Values at the edges of every number the format holds (Fuzz/seeds): one mutation from
    # an overflow, so that the fuzzer tries them within seconds.
    [ -d "seeds/$target" ] && cp seeds/"$target"/* "$corpus"
    # Earlier findings are seeds too, so that a fixed crash stays fixed.
    [ -d "../Tests/Fixtures/fuzz/$target" ] && cp ../Tests/Fixtures/fuzz/"$target"/* "$corpus" 2>/dev/null || true
}
fuzz() {
    rc=0
    dict=""
    [ -f "dictionaries/$1.dict" ] && dict="-dict=dictionaries/$1.dict"
    "$bin/$1" $dict -max_total_time="$seconds" -timeout=5 -rss_limit_mb=2048 -max_len=65536 \
        -artifact_prefix="crashes/$1/" -print_final_stats=0 "$work/$1" >"$work/$1.log" 2>&1 || rc=$?
    echo $rc > "$work/$1.status"
}
report() {
    echo "$1: $seconds s"
    if [ "$(cat "$work/$1.status")" != 0 ]; then
        status=1
        echo "$1 found a problem:"
        grep -E "ERROR|SUMMARY|Fatal error|Test unit written|==[0-9]+==" "$work/$1.log" | head -20
        tail -40 "$work/$1.log"
    else
        grep -E "^#[0-9]+.*(DONE|pulse)" "$work/$1.log" | tail -1 || true
    fi
}
status=0
batch=""
for target in $targets; do
    prepare "$target"
    fuzz "$target" &
    batch="$batch $target"
    if [ "$(echo $batch | wc -w)" -ge "$jobs" ]; then
        wait
        for t in $batch; do report "$t"; done
        batch=""
    fi
done
wait
for t in $batch; do report "$t"; done
exit $status
