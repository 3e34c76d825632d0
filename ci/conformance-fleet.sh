#!/usr/bin/env bash
# The conformance runner at fleet scale, on the simulator (release build):
#   1. the suite across 8 simulated devices (NPU_SIM_DEVICES=8 --devices all)
#      gives the verdicts of one device; the wall times of both are printed
#      (the suite, and the suite x10 so the cases outweigh the start-up);
#   2. four shards (--shard I/4) merge (npu-ops report merge) into the
#      unsharded run's totals; an inconsistent merge is refused (exit 2);
#   3. the suite recorded (--record) replays on the simulator with no
#      failure, and the simulator compared with itself (--compare sim)
#      finds no difference;
#   4. through the real-CANN loading path (the simulator laid out as CANN,
#      ci/sim-cann-root.sh): --backend cann --devices all --compare sim.
# Timings are printed, never asserted (a shared CI machine is noisy).
# RUNS (default 5) runs of each timing; the best is kept.
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${RUNS:-5}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cargo build --quiet --release -p npu-ops-cli
exe=$PWD/target/release/npu-ops
unset NPU_SIM_DEVICES NPU_SIM_SOC NPU_OPS_BACKEND
fail() { echo "conformance-fleet: $*" >&2; exit 1; }

# (id, observed, status) of every case of a JSON report, in order (the
# report is pretty-printed, one field a line, keys sorted).
verdicts() { grep -E '^      "(id|observed|status)": ' "$1"; }
# The closing line of a run's output.
summary() { grep -E '^conformance: ' "$1"; }
# Best wall time, in ms, of `runs` runs of the command.
best_ms() {
    local best="" t0 t1 ms
    for _ in $(seq "$runs"); do
        t0=$(date +%s%N)
        "$@" >/dev/null
        t1=$(date +%s%N)
        ms=$(( (t1 - t0) / 1000000 ))
        if [ -z "$best" ] || [ "$ms" -lt "$best" ]; then best=$ms; fi
    done
    echo "$best"
}

echo "== 1. devices"
"$exe" conformance --backend sim --report "$work/one.json" > "$work/one.txt"
NPU_SIM_DEVICES=8 "$exe" conformance --backend sim --devices all --report "$work/eight.json" > "$work/eight.txt"
diff <(verdicts "$work/one.json") <(verdicts "$work/eight.json") > /dev/null \
    || fail "8 devices gave other verdicts than 1"
[ "$(summary "$work/one.txt")" = "$(summary "$work/eight.txt")" ] || fail "8 devices: other totals"
sed -n '/^device /,/^$/p' "$work/eight.txt"
# The suite x10 (ids made unique), for timings the cases dominate.
for k in $(seq 10); do
    sed -E "s/\"id\": ?\"([^\"]*)\"/\"id\": \"\\1#$k\"/" crates/npu-ops-cli/tests/cases/*.jsonl
done > "$work/x10.jsonl"
cores=$(nproc 2>/dev/null || echo "?")
printf '%-34s %10s %10s\n' "wall time (best of $runs, $cores cores)" "1 device" "8 devices"
for suite in "" "$work/x10.jsonl"; do
    cases=$("$exe" conformance --backend sim ${suite:+"$suite"} | summary /dev/stdin | cut -d' ' -f2)
    one=$(best_ms "$exe" conformance --backend sim ${suite:+"$suite"})
    eight=$(NPU_SIM_DEVICES=8 best_ms "$exe" conformance --backend sim --devices all ${suite:+"$suite"})
    printf '%-34s %8s ms %8s ms\n' "$([ -n "$suite" ] && echo "suite x10" || echo suite) ($cases cases)" "$one" "$eight"
done

echo "== 2. shards"
for i in 1 2 3 4; do
    "$exe" conformance --backend sim --shard "$i/4" --report "$work/shard$i.json" > /dev/null
done
"$exe" report merge "$work"/shard{3,1,4,2}.json --report "$work/merged.json" --junit "$work/merged.xml" \
    > "$work/merged.txt"
[ "$(summary "$work/merged.txt")" = "$(summary "$work/one.txt")" ] \
    || fail "merged shards: $(summary "$work/merged.txt"), unsharded: $(summary "$work/one.txt")"
diff <(verdicts "$work/one.json") <(verdicts "$work/merged.json") > /dev/null \
    || fail "merged shards: other verdicts than the unsharded run"
echo "4 shards merged: $(summary "$work/merged.txt")"
set +e
"$exe" report merge "$work"/shard{1,2,3}.json > /dev/null 2>&1; missing=$?
"$exe" report merge "$work"/shard{1,2,3,4,1}.json > /dev/null 2>&1; twice=$?
set -e
[ "$missing" = 2 ] && [ "$twice" = 2 ] || fail "an inconsistent merge was not refused ($missing, $twice)"

echo "== 3. record, replay, compare"
"$exe" conformance --backend sim --record "$work/golden" > "$work/record.txt"
grep '^recorded ' "$work/record.txt"
"$exe" conformance --backend sim "$work/golden" > "$work/replay.txt" || fail "the recording does not replay"
[ "$(summary "$work/replay.txt")" = "$(summary "$work/one.txt")" ] || fail "replay: other totals"
echo "replayed: $(summary "$work/replay.txt")"
NPU_SIM_DEVICES=2 "$exe" conformance --backend sim --devices all --compare sim > "$work/compare.txt" \
    || fail "sim differs from sim"
grep 'cases run differ' "$work/compare.txt"

echo "== 4. the CANN loading path: --backend cann --devices all --compare sim"
root="$work/cann"
bash ci/sim-cann-root.sh "$root" > /dev/null
ASCEND_HOME_PATH="$root" NPU_SIM_DEVICES=4 "$exe" conformance --backend cann --devices all --compare sim \
    > "$work/cann.txt" || { cat "$work/cann.txt"; fail "cann against sim"; }
grep -E '^backend |cases run differ|^conformance: ' "$work/cann.txt"
echo "conformance-fleet: ok"
