#!/usr/bin/env bash
# Lays out a folder like a CANN installation, backed by the simulator:
#   DIR/lib64/{libascendcl,libnnopbase,libopapi_math,libopapi_nn}.so -> libnpu_sim_c.so
#   DIR/include/{cann_sys.h,npu_sim.h}
# Then `ASCEND_HOME_PATH=DIR` makes cann_sys::Api::load (and npu-ops with
# NPU_OPS_BACKEND=cann) use the simulator through the real loading path, and
# an aclnn C program builds with -I DIR/include -L DIR/lib64 -lascendcl
# -lnnopbase -lopapi_math -lopapi_nn.
# Usage: ci/sim-cann-root.sh DIR
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
cargo build --quiet --release -p npu-sim-c
target_dir=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')
lib="$target_dir/release/libnpu_sim_c.so"
mkdir -p "$1/lib64" "$1/include"
dir=$(cd "$1" && pwd)
for name in libascendcl.so libnnopbase.so libopapi_math.so libopapi_nn.so; do
    ln -sf "$lib" "$dir/lib64/$name"
done
cp cann-sys/include/cann_sys.h crates/npu-sim/include/npu_sim.h "$dir/include/"
echo "simulated CANN root: $dir (export ASCEND_HOME_PATH=$dir)"
