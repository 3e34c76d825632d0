#!/usr/bin/env bash
# Runs the user-facing examples (each checks its own results and exits
# non-zero on a mismatch); fails if any of them fails.
set -euo pipefail
cd "$(dirname "$0")/.."

examples=(kv_cache embedding prepared_loop streams multi_device)
failed=()
for name in "${examples[@]}"; do
    echo "== cargo run --example $name"
    if ! cargo run --quiet --example "$name"; then
        failed+=("$name")
    fi
done

# The figures program, small (its figures come from a release run).
echo "== cargo run --example service_figures -- 4"
cargo run --quiet --example service_figures -- 4 || failed+=(service_figures)

if ((${#failed[@]})); then
    echo "examples failed: ${failed[*]}" >&2
    exit 1
fi
echo "all ${#examples[@]} examples passed"
