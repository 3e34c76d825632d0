#!/usr/bin/env bash
# Formatting and lints, as CI runs them.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo fmt --all -- --check
cargo clippy --workspace --all-targets -- -D warnings
