#!/usr/bin/env bash
# The API docs build with every warning denied (broken or private links,
# bad code blocks): on stable, and as docs.rs builds them (nightly,
# `--cfg docsrs`: feature-gated items carry their feature's badge).
set -euo pipefail
cd "$(dirname "$0")/.."
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --features npu-ops/async
if rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
  RUSTDOCFLAGS="--cfg docsrs -D warnings" cargo +nightly doc --workspace --no-deps \
    --features npu-ops/async --target-dir target/docsrs
  # The badge is there: the async wait is documented as needing `async`.
  grep -q 'crate feature <code>async</code>' target/docsrs/doc/npu_ops/struct.PinnedCopy.html \
    || { echo "doc: the docs.rs build lost the feature badges" >&2; exit 1; }
else
  echo "doc: no nightly toolchain; the docs.rs build (--cfg docsrs) was not checked" >&2
  [ -z "${CI:-}" ] || exit 1
fi
echo "doc: clean"
