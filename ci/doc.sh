#!/usr/bin/env bash
# The API docs build with every warning denied (broken or private links,
# bad code blocks), as docs.rs would build them.
set -euo pipefail
cd "$(dirname "$0")/.."
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --features npu-ops/async
echo "doc: clean"
