#!/usr/bin/env bash
# Lays out DIR as a CANN installation backed by the simulator, with
# `npu-ops sim install DIR` (building npu-ops and the simulator's shared
# library first): DIR/<arch>-linux/ holds CANN's headers (include/), its
# libraries (lib64/: libascendcl.so, libnnopbase.so, libopapi_math.so, ...
# each exporting only its own symbols), bin/setenv.bash and the version
# file; DIR/include, DIR/lib64 and DIR/bin link there; DIR/set_env.sh.
# Then `source DIR/set_env.sh` (or ASCEND_HOME_PATH=DIR) makes
# cann_sys::Api::load, npu-ops with NPU_OPS_BACKEND=cann, and aclnn C/C++
# programs use the simulator.
# Usage: ci/sim-cann-root.sh DIR
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
# One build: the workspace's default members are the command and the
# simulator's shared library, which `sim install` finds beside the program.
cargo build --quiet --release
target_dir=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')
"$target_dir/release/npu-ops" sim install "$1"
