#!/usr/bin/env bash
# Builds the libFuzzer targets (release, with AddressSanitizer) and runs them.
#
#   Scripts/fuzz.sh [TARGET...] [-- LIBFUZZER-OPTIONS...]
#
# TARGET is xml, json, predicate, arguments, model or change (default: all six, one after another).
# FUZZ_SECONDS (default 600) is how long each runs. New inputs go to .build/fuzz-corpus/TARGET
# (the seeds in Fuzz/Corpus/TARGET stay as they are); a crash, hang (FUZZ_TIMEOUT s, default 10)
# or allocation over FUZZ_MALLOC_MB (default 512) stops the target and leaves the input in
# .build/fuzz-findings/TARGET/. Fix it, then copy the input to Fuzz/Regressions/TARGET/, where
# `swift test` (FuzzRegressionTests) keeps it fixed. A summary line per target goes to
# .build/fuzz-findings/summary.txt.
set -euo pipefail
cd "$(dirname "$0")/.."

targets=()
options=()
while [ $# -gt 0 ]; do
    if [ "$1" = "--" ]; then shift; options=("$@"); break; fi
    targets+=("$1"); shift
done
[ ${#targets[@]} -gt 0 ] || targets=(xml json predicate arguments model change)

seconds="${FUZZ_SECONDS:-600}"
# Not `--sanitize fuzzer --sanitize address`: SwiftPM passes those to the compiler as two options
# (in an order that changes from run to run, so every build is a full rebuild), and the Swift 6.3
# driver hands only the last to the frontend: either no coverage (libFuzzer then fuzzes blind,
# "no interesting inputs were found") or no AddressSanitizer checks. One option with both keeps
# both (`objdump -h` shows __sancov_cntrs; `nm` shows __asan_report_*), and links both runtimes.
build=(swift build -c release --scratch-path .build/fuzz --sanitize fuzzer -Xswiftc -sanitize=fuzzer,address)
for target in "${targets[@]}"; do
    case "$target" in xml|json|predicate|arguments|model|change) ;; *) echo "unknown target: $target" >&2; exit 64;; esac
    "${build[@]}" --product "fuzz-$target"
done
binaries="$("${build[@]}" --show-bin-path)"

mkdir -p .build/fuzz-findings
for target in "${targets[@]}"; do
    corpus=".build/fuzz-corpus/$target"
    findings=".build/fuzz-findings/$target"
    mkdir -p "$corpus" "$findings"
    seeds=("Fuzz/Corpus/$target" "Fuzz/Regressions/$target")
    case "$target" in
        xml|json) seeds+=(SampleData Tests/VacationsTests/Fixtures/flickr) ;;
    esac
    log="$findings/fuzz.log"
    echo "fuzz-$target: ${seconds} s; log in $log"
    status=0
    SWIFT_BACKTRACE=enable=no ASAN_OPTIONS="detect_leaks=0:${ASAN_OPTIONS:-}" \
        "$binaries/fuzz-$target" "$corpus" "${seeds[@]}" \
        -dict="Fuzz/Dictionaries/$target.dict" -max_total_time="$seconds" -timeout="${FUZZ_TIMEOUT:-10}" \
        -malloc_limit_mb="${FUZZ_MALLOC_MB:-512}" -rss_limit_mb=2048 -max_len=8192 -print_final_stats=1 \
        -artifact_prefix="$findings/" ${options[@]+"${options[@]}"} >"$log" 2>&1 || status=$?
    runs="$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')"
    coverage="$(grep -o 'cov: [0-9]*' "$log" | tail -1 || true)"
    artifacts="$(find "$findings" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'leak-*' -o -name 'slow-unit-*' \) | wc -l)"
    line="fuzz-$target: exit $status, $runs executions in $seconds s, $coverage, $artifacts findings, corpus $(ls "$corpus" | wc -l) inputs ($(date -u +%FT%TZ))"
    echo "$line" | tee -a .build/fuzz-findings/summary.txt
    if [ "$status" -ne 0 ]; then grep -m 5 -E 'ERROR|Fatal error|==[0-9]+==|Test unit written' "$log" || true; fi
done
