#!/usr/bin/env bash
# Regenerates cann-sys/src/bindings.rs from cann-sys/include/cann_sys.h with
# bindgen (the cann-sys `bindgen` feature) and fails on any difference.
#   ci/check-bindings.sh           check
#   ci/check-bindings.sh --update  rewrite the checked-in bindings
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/setup.sh
generated=$(mktemp --suffix=.rs)
trap 'rm -f "$generated"' EXIT
# Never pick up a real CANN here: this checks the project's own header.
env -u ASCEND_HOME_PATH -u ASCEND_TOOLKIT_HOME CANN_SYS_BINDINGS_COPY_TO="$generated" \
    cargo build --quiet -p cann-sys --features bindgen
if [ "${1:-}" = "--update" ]; then
    cp "$generated" cann-sys/src/bindings.rs
    echo "check-bindings: cann-sys/src/bindings.rs updated"
elif ! diff -u cann-sys/src/bindings.rs "$generated"; then
    echo "check-bindings: cann-sys/src/bindings.rs is stale; run ci/check-bindings.sh --update" >&2
    exit 1
else
    echo "check-bindings: cann-sys/src/bindings.rs matches include/cann_sys.h"
fi
