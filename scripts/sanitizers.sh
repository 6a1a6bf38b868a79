#!/bin/sh
# Before each release: the unit tests under AddressSanitizer, and the runtime and input
# tests (the threads: the real-time queue, device hotplug, the presenters) under
# ThreadSanitizer. Each has a build folder of its own; a finding fails the run.
#   sh scripts/sanitizers.sh [address|thread]
set -eu
cd "$(dirname "$0")/.."
which=${1:-all}
if [ "$which" = all ] || [ "$which" = address ]; then
    # Memory errors fail the run. Leak checking is off: at exit it reports what threads
    # still running own (the real-time queue's engine) and Foundation's and XCTest's own.
    ASAN_OPTIONS=detect_leaks=0 swift test --scratch-path .build-asan --sanitize=address \
        --filter 'ScanCoreTests|ScanFormatsTests|ScanRuntimeTests|SwitchInputTests|SwitchScanCLITests|WordPredictionTests'
fi
if [ "$which" = all ] || [ "$which" = thread ]; then
    swift test --scratch-path .build-tsan --sanitize=thread --filter 'ScanRuntimeTests|SwitchInputTests'
fi
