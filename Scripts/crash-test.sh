#!/usr/bin/env bash
# The long crash run: `vacation import`, `unvisit`, `backup`, `restore`, `sync` and an autosaving process killed
# with SIGKILL at random moments, KILLS times (default 200), each followed by the checks of
# Tests/ReliabilityTests/CrashHarness.swift. `swift test` runs the short version (20 kills).
#
#   Scripts/crash-test.sh [KILLS] [SEED]
set -euo pipefail
cd "$(dirname "$0")/.."
export VACATIONS_CRASH_KILLS="${1:-200}"
[ -z "${2:-}" ] || export VACATIONS_CRASH_SEED="$2"
swift build --build-tests
swift test --skip-build --filter 'ReliabilityTests.CrashTests' 2>&1 | tee .build/crash-test.log | grep -E 'Crash run|✘|✔ Test run|Expectation failed|^  '
