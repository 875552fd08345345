#!/usr/bin/env bash
# The test suite under a sanitizer, in a build folder of its own. The products the tests start
# (vacation, vacations-test-helper) are instrumented too; the process tests fail on their reports.
#
#   Scripts/sanitizers.sh thread [FILTER]    ThreadSanitizer; FILTER defaults to the tests that
#                                            run threads and processes together
#   Scripts/sanitizers.sh address [FILTER]   AddressSanitizer, the whole suite by default (leak
#                                            checks off: XCTest's own leaks fail clean runs)
set -euo pipefail
cd "$(dirname "$0")/.."
kind="${1:-thread}"
export SWIFT_BACKTRACE=enable=no
# `vacation` linked dynamically: ThreadSanitizer's runtime fails on the static Foundation (Package.swift).
export VACATIONS_SANITIZER_BUILD=1
mkdir -p .build
case "$kind" in
    thread)
        log=.build/tsan.log
        filter="${2:-ConcurrencyTests|CrashTests|ProcessTests|AutosaveTests|ContextsTogetherTests|BackupTests|QueueContext|LockedTests|LiveChangesTests}"
        status=0
        swift test --sanitize thread --scratch-path .build/tsan --filter "$filter" >"$log" 2>&1 || status=$?
        ;;
    address)
        log=.build/asan.log
        args=()
        [ -z "${2:-}" ] || args=(--filter "$2")
        status=0
        ASAN_OPTIONS="detect_leaks=0:${ASAN_OPTIONS:-}" \
            swift test --sanitize address --scratch-path .build/asan ${args[@]+"${args[@]}"} >"$log" 2>&1 || status=$?
        ;;
    *) echo "usage: Scripts/sanitizers.sh thread|address [FILTER]" >&2; exit 64 ;;
esac
grep -E '✔ Test run|✘ Test run|Executed [0-9]+ tests' "$log" | tail -3 || true
reports="$(grep -c -E 'WARNING: ThreadSanitizer|ERROR: AddressSanitizer' "$log" || true)"
echo "$kind sanitizer: exit $status, $reports reports (log in $log)"
[ "$status" -eq 0 ] && [ "$reports" -eq 0 ]
