#!/usr/bin/env bash
# Formatting and lints, as CI runs them.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --features npu-ops/async -- -D warnings
# A production build: no simulator, no command line.
cargo clippy -p npu-ops --no-default-features -- -D warnings
