#!/usr/bin/env bash
# The real-CANN path without an NPU: the simulator laid out as a CANN
# installation (ci/sim-cann-root.sh), then the safe layer's tests and the
# conformance runner with NPU_OPS_BACKEND=cann, so everything goes through
# cann_sys::Api::load and dlopen as on an NPU host (cases for other product
# families are skipped, tests that need the simulator's counters skip).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
bash ci/sim-cann-root.sh "$root"
export ASCEND_HOME_PATH="$root" NPU_OPS_BACKEND=cann
cargo test --quiet -p npu-ops -p npu-ops-cli --tests
cargo run --quiet -- conformance --backend cann
cargo run --quiet -- info --backend cann
