#!/usr/bin/env bash
# The full fault sweep: every I/O call of each operation (import, import in chunks, a save with
# delete rules, a fetch with faulting, a results-controller refresh after a merge, a backup)
# fails in turn, once and then from that call on, through the fault-injecting SQLite VFS
# (Sources/SQLiteFaultVFS); after each run the store is checked (integrity, domain rules,
# whole operation or none of it). `swift test` runs a sample of about 12 calls per operation.
#
#   Scripts/fault-test.sh [SEED]
#
# Prints one line of figures per operation, then the totals.
set -euo pipefail
cd "$(dirname "$0")/.."
export VACATIONS_FAULT_SWEEP=full
[ -z "${1:-}" ] || export VACATIONS_FAULT_SEED="$1"
swift build --build-tests
log=.build/fault-test.log
status=0
swift test --skip-build --filter 'ReliabilityTests.FaultInjectionTests' > "$log" 2>&1 || status=$?
grep -E '✘|Expectation failed' "$log" | head -40 || true
grep -E '^Fault sweep' "$log" | sed 's/^Fault sweep ([^)]*): //'
grep -E '^Fault sweep' "$log" | awk '
    {
        for (i = 1; i <= NF; i++) {
            if ($(i+1) == "I/O" && $(i+2) == "calls") calls += $i
            if ($(i+1) == "runs" && $(i+2) == "with") runs += $i
            if ($(i+1) == "clean" && $(i+2) == "errors,") clean += $i
            if ($(i+1) == "successes,") successes += $i
            if ($(i+1) == "stores" && $(i+2) == "checked,") checked += $i
            if ($(i+1) == "lost") lost += $i
            if ($(i+1) == "errors" && $(i+2) == "taken") data += $i
            if ($(i+1) == "failures;") failures += $i
        }
    }
    END {
        printf "Total: %d I/O calls in clean runs; %d runs with a call failed: %d clean errors, %d successes, %d stores checked, %d lost or half-written, %d errors taken for data, %d failures\n", calls, runs, clean, successes, checked, lost, data, failures
    }'
grep -E '✔ Test run|✘ Test run' "$log" || true
exit "$status"
