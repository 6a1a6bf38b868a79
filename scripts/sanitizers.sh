#!/bin/sh
# Before each release: the unit tests under AddressSanitizer, and every suite with threads
# of its own under ThreadSanitizer: the executor kit, the real-time queue, device hotplug,
# the presenters, a session, the X11 overlay and window watcher, the speech thread, and the live desktop (whose
# switchscan children are built with it too). Each has a build folder of its own; a
# finding fails the run.
#   sh scripts/sanitizers.sh [address|thread]
set -eu
cd "$(dirname "$0")/.."
which=${1:-all}
if [ "$which" = all ] || [ "$which" = address ]; then
    # Memory errors fail the run. Leak checking is off: at exit it reports what threads
    # still running own (the real-time queue's engine) and Foundation's and XCTest's own.
    # The desktop's error paths too: an application killed while it is read, a DesktopAccess
    # dropped without stop; and the batches that read fields' texts and values (their
    # switchscan children are built with it too).
    # The sanitizers make mlock and mlockall do nothing (their shadow memory could not be
    # locked), so the tests of locked memory run in the plain unit tests only.
    # The switchscan children run a few times slower: the tests wait twice as long for them.
    # The slow application's whole read is left to the plain run: it checks timing (an
    # application that gets 2 ms of every 12), which this run's load and slowness distort,
    # and the same calls are read under this sanitizer by the big and dying applications.
    # The Wayland clients (C listeners handed Swift objects, shared-memory buffers) run here
    # against a real sway.
    ASAN_OPTIONS=detect_leaks=0 SWITCHSCAN_TEST_TIME_SCALE=2 swift test --scratch-path .build-asan --sanitize=address \
        --filter 'ScanCoreTests|ScanHostTests|ScanFormatsTests|ScanCoreLayoutTests|ScanRuntimeTests|SwitchInputTests|SwitchScanCLITests|WordPredictionTests|DesktopAccessTests|ScanSessionTests|CommandSupportTests|SwitchSetupTests|WaylandOutputTests|CompositorsTests|ScreenSceneTests|DesktopTests.WaylandTests|DesktopTests.BigApplicationTests|DesktopTests.CallErrorTests|DesktopTests.StoppedDesktopTests|fieldsTextsAndValuesAreReadAsTheWindowHasThem' \
        --skip 'MemoryLockTests|memoryIsLockedAsItIsUsedAndTheRealTimeStackAhead|aSlowApplicationIsReadWhole'
fi
if [ "$which" = all ] || [ "$which" = thread ]; then
    # Speech with a real server is left out: libspeechd ends its event thread with
    # pthread_cancel, which ThreadSanitizer cannot follow (it stops the run); the speech
    # thread itself is tested with a stand-in server.
    # Its switchscan children run several times slower: the desktop tests wait longer. Of the
    # desktop suites, those that bring threads of their own run here: the live desktop (the
    # AT-SPI thread, its action connection, the engine and the presenters), typing into a
    # field (in a dialog a button's action runs too), and access after stop. The others
    # (mousepad's and LibreOffice's typing among them) drive the same threads with other
    # applications or other policies (dialogs, gestures, toolkits, the screen, tasks, autostart,
    # big applications, web pages, crash restart under a user manager; mousepad's typing under
    # Wayland, as under X; KWinTests and GnomeTests but its Windows page (GNOME's
    # listener threads, the extension's drawing, the remote desktop), whose threads
    # WaylandTests' KWin cases and that one drive already, and whose KWin drawing on the CPU beside
    # them would starve the sway cases' applications); under this sanitizer
    # they would take minutes of CI and find nothing new. Locked memory is left to the plain
    # unit tests, as above.
    SWITCHSCAN_TEST_TIME_SCALE=4 swift test --scratch-path .build-tsan --sanitize=thread \
        --filter 'ScanHostTests|ScanRuntimeTests|ScanSessionTests|SwitchInputTests|X11OutputTests|SpeechOutputTests.SpeechThreadTests|DesktopTests' \
        --skip 'BigApplicationTests|StrandedTests|GestureTests|ToolkitTests|OnScreenTests|AutostartDesktopTests|HarnessTests|CrashRestartTests|TaskTests|WebTests|WordProcessorTypingTests|saveAsByItsMenuItem|saveAsByItsShortcut|openByItsMenuItem|writersSave|ToolkitDialogTests|KWinTests|GnomeTests.(theShell|theBenchmarks|theMenu|theOutline|onAMonitor|with|aShell|aSwitch|aRun)|aSwitchUserTypesIntoMousepad|memoryIsLockedAsItIsUsedAndTheRealTimeStackAhead'
fi
