#!/usr/bin/env bash
# Every crate of the workspace packages and its package builds on its own
# (cargo package verifies each against the others' packages).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo package --workspace --allow-dirty --quiet
echo "package: every crate packages and builds from its package"
