#!/usr/bin/env bash
# The long concurrency run: RUNS times (default 20), four processes on one vacation at once (two
# importers of overlapping feeds, a toggler, a backup taker), each compared with a serial run and
# every backup restored and checked (Tests/ReliabilityTests/ConcurrencyTests.swift).
# `swift test` runs it once.
#
#   Scripts/concurrency-test.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
export VACATIONS_CONCURRENT_RUNS="${1:-20}"
swift build --build-tests
swift test --skip-build --filter 'ReliabilityTests.ConcurrencyTests' 2>&1 | tee .build/concurrency-test.log | grep -E 'Concurrent runs|✘|✔ Test run|Expectation failed|^  '
