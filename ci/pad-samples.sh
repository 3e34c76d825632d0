#!/usr/bin/env bash
# The pad programs (tests/aclnn/reflection_pad2d.cpp: aclnnReflectionPad2d,
# aclnnReplicationPad2d, aclnnCircularPad2d), written as CANN's samples
# are, built with CANN's documented line against `npu-ops sim install`
# output and run:
#   g++ -std=c++11 -I $ROOT/include -I $ROOT/include/aclnn X.cpp -L $ROOT/lib64 \
#       -lopapi_math -lascendcl -lnnopbase
# plus the legacy umbrella (-lopapi), and a link that must fail as on an NPU
# host (the pads without libopapi_math). Needs a C++ compiler. Modelled on
# ci/add-mul-samples.sh; kept apart so that it can be hooked in alone.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
root=$(mktemp -d)
bin=$(mktemp -d)
trap 'rm -rf "$root" "$bin"' EXIT
bash ci/sim-cann-root.sh "$root" >/dev/null
# shellcheck disable=SC1091
source "$root/set_env.sh"
ROOT=$ASCEND_HOME_PATH
CXX=${CXX:-g++}
src=tests/aclnn
fail() { echo "pad-samples: FAIL: $*" >&2; exit 1; }

run() { # name compiler-line...
    local name=$1; shift
    echo "== $name: $*"
    "$@" || fail "$name does not build"
    "$bin/$name" | tail -n 1 || fail "$name failed"
}
run reflection_pad2d "$CXX" -std=c++11 -I "$ROOT/include" -I "$ROOT/include/aclnn" "$src/reflection_pad2d.cpp" \
    -L "$ROOT/lib64" -lopapi_math -lascendcl -lnnopbase -o "$bin/reflection_pad2d"
run reflection_pad2d_legacy "$CXX" -std=c++11 -I "$ROOT/include" -I "$ROOT/include/aclnn" "$src/reflection_pad2d.cpp" \
    -L "$ROOT/lib64" -lopapi -lascendcl -lnnopbase -o "$bin/reflection_pad2d_legacy"

# The pads live in libopapi_math.so: without it the link fails, as on an NPU host.
out=$("$CXX" -std=c++11 -I "$ROOT/include" -I "$ROOT/include/aclnn" "$src/reflection_pad2d.cpp" \
    -L "$ROOT/lib64" -lopapi_nn -lascendcl -lnnopbase -o "$bin/bad" 2>&1) && fail "the pads linked without libopapi_math"
grep -q "undefined reference to \`aclnnReflectionPad2dGetWorkspaceSize'" <<<"$out" || fail "pads without libopapi_math: $out"
echo "== ReflectionPad2d without libopapi_math: fails to link (undefined aclnnReflectionPad2dGetWorkspaceSize), as on an NPU host"
echo "pad-samples: reflection_pad2d builds with CANN's line and passes; the wrong link fails"
