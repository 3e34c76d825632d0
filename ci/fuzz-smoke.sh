#!/usr/bin/env bash
# Runs every cargo-fuzz target (fuzz/) for a bounded time, starting from its
# committed corpus (new inputs go to a scratch folder, the corpus is not
# modified); any crash, panic or mismatch fails. Installs cargo-fuzz if it
# is missing; needs the nightly toolchain.
#   ci/fuzz-smoke.sh            FUZZ_SECONDS (default 45) per target
#   FUZZ_SECONDS=600 ci/fuzz-smoke.sh ops
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${FUZZ_SECONDS:-45}
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(ops case_reader sim_abi)
if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "ci/fuzz-smoke.sh: installing cargo-fuzz"
    cargo install --quiet --locked cargo-fuzz
fi
cargo +nightly fuzz build --fuzz-dir fuzz
# A huge host allocation must fail as Rust sees it (a typed out-of-memory
# error), not abort inside the sanitizer.
# At exit the simulator's runtime (its stream workers) is alive by design;
# leaks are checked after each input instead (libFuzzer's -detect_leaks).
export ASAN_OPTIONS="allocator_may_return_null=1:leak_check_at_exit=0:${ASAN_OPTIONS:-}"
export LSAN_OPTIONS="suppressions=$PWD/fuzz/lsan.supp:${LSAN_OPTIONS:-}"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for t in "${targets[@]}"; do
    mkdir -p "$scratch/$t" "fuzz/corpus/$t"
    echo "== fuzz $t for ${secs}s"
    # rss_limit: the simulator maps device memory lazily; timeouts catch hangs.
    status=0
    cargo +nightly fuzz run --fuzz-dir fuzz "$t" "$scratch/$t" "fuzz/corpus/$t" -- \
        -max_total_time="$secs" -rss_limit_mb=6144 -timeout=60 -print_final_stats=1 \
        -artifact_prefix="$scratch/" >"$scratch/$t.log" 2>&1 || status=$?
    grep -E "^(#[0-9]+ +DONE|stat::number_of_executed_units|stat::peak_rss_mb|==[0-9]+==ERROR|SUMMARY|thread '|panicked)" "$scratch/$t.log" || true
    if [ "$status" != 0 ] || ls "$scratch"/crash-* "$scratch"/leak-* "$scratch"/timeout-* "$scratch"/oom-* >/dev/null 2>&1; then
        tail -40 "$scratch/$t.log" >&2
        echo "ci/fuzz-smoke.sh: $t found a problem; reproducer(s):" >&2
        for f in "$scratch"/crash-* "$scratch"/leak-* "$scratch"/timeout-* "$scratch"/oom-*; do
            [ -e "$f" ] && { echo "  $f" >&2; base64 -w0 "$f" >&2; echo >&2; }
        done
        exit 1
    fi
done
echo "== fuzz smoke: no findings"
