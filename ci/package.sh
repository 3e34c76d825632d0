#!/usr/bin/env bash
# Every crate of the workspace packages and its package builds on its own
# (cargo package verifies each against the others' packages).
set -euo pipefail
cd "$(dirname "$0")/.."
# cargo package --workspace verifies through a temporary local registry
# (target/package/tmp-registry) but unpacks its crates under
# $CARGO_HOME/registry/src/<hash of that path>/ and reuses an unpacked
# crate of the same name and version from an earlier run: a second run in
# the same folder would verify against the old sources. Drop them (local
# registries only; crates.io's folder is index.crates.io-*), and the
# builds of earlier verifications (a registry crate is never rebuilt for
# changed sources, its version is its fingerprint; they share target/debug).
rm -rf target/package target/debug/.fingerprint/npu-ops-*
cargo_home=${CARGO_HOME:-$HOME/.cargo}
for d in "$cargo_home"/registry/src/-*/; do
  [ -d "$d" ] || continue
  for c in "$d"npu-ops-*; do
    [ -e "$c" ] && rm -rf -- "$c"
  done
done
cargo package --workspace --allow-dirty --quiet
echo "package: every crate packages and builds from its package"
