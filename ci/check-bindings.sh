#!/usr/bin/env bash
# Regenerates cann-sys/src/bindings.rs from cann-sys/include/cann_sys.h with
# bindgen (the cann-sys `bindgen` feature) and fails on any difference.
#   ci/check-bindings.sh           check
#   ci/check-bindings.sh --update  rewrite the checked-in bindings
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/setup.sh
generated=$(mktemp --suffix=.rs)
fake=$(mktemp -d)
trap 'rm -rf "$generated" "$fake"' EXIT
# Never pick up a real CANN here: this checks the project's own header.
env -u ASCEND_HOME_PATH -u ASCEND_TOOLKIT_HOME CANN_SYS_BINDINGS_COPY_TO="$generated" \
    cargo build --quiet -p npu-ops-cann-sys --features bindgen
if [ "${1:-}" = "--update" ]; then
    cp "$generated" cann-sys/src/bindings.rs
    echo "check-bindings: cann-sys/src/bindings.rs updated"
elif ! diff -u cann-sys/src/bindings.rs "$generated"; then
    echo "check-bindings: cann-sys/src/bindings.rs is stale; run ci/check-bindings.sh --update" >&2
    exit 1
else
    echo "check-bindings: cann-sys/src/bindings.rs matches include/cann_sys.h"
fi

# The real-CANN mode (ASCEND_HOME_PATH with include/acl/acl.h): run it on
# CANN's header layout as the simulated CANN root ships it, generated from
# the project's header (cann_sys::headers; no aclnn status macros, as CANN
# installs no op_errno.h). It must give the same bindings: the layout and
# the header cannot drift, and the path an NPU host takes stays working.
cargo run --quiet -p npu-ops-cann-sys --example cann_layout -- "$fake"
env -u ASCEND_TOOLKIT_HOME ASCEND_HOME_PATH="$fake" CANN_SYS_BINDINGS_COPY_TO="$fake/real.rs" \
    cargo build --quiet -p npu-ops-cann-sys --features bindgen
# The same items (the layout's include order puts them in another order).
if ! diff -u <(sort "$generated") <(sort "$fake/real.rs"); then
    echo "check-bindings: the real-header mode of the bindgen feature gives different bindings" >&2
    exit 1
fi
echo "check-bindings: real-header mode agrees"
