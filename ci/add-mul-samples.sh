#!/usr/bin/env bash
# The aclnnAdd / aclnnMul programs (tests/aclnn/add.cpp, mul.cpp), written as
# CANN's samples are, built with CANN's documented line against
# `npu-ops sim install` output and run:
#   g++ -std=c++11 -I $ROOT/include -I $ROOT/include/aclnn X.cpp -L $ROOT/lib64 \
#       -lopapi_math -lascendcl -lnnopbase
# plus the legacy umbrella (-lopapi), and a link that must fail as on an NPU
# host (Add without libopapi_math). Needs a C++ compiler. Modelled on
# ci/aclnn-samples.sh; kept apart so that the two can be hooked in alone.
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
fail() { echo "add-mul-samples: FAIL: $*" >&2; exit 1; }

run() { # name compiler-line...
    local name=$1; shift
    echo "== $name: $*"
    "$@" || fail "$name does not build"
    "$bin/$name" | tail -n 1 || fail "$name failed"
}
for op in add mul; do
    run "$op" "$CXX" -std=c++11 -I "$ROOT/include" -I "$ROOT/include/aclnn" "$src/$op.cpp" \
        -L "$ROOT/lib64" -lopapi_math -lascendcl -lnnopbase -o "$bin/$op"
    run "${op}_legacy" "$CXX" -std=c++11 -I "$ROOT/include" -I "$ROOT/include/aclnn" "$src/$op.cpp" \
        -L "$ROOT/lib64" -lopapi -lascendcl -lnnopbase -o "$bin/${op}_legacy"
done

# Add lives in libopapi_math.so: without it the link fails, as on an NPU host.
out=$("$CXX" -std=c++11 -I "$ROOT/include" -I "$ROOT/include/aclnn" "$src/add.cpp" \
    -L "$ROOT/lib64" -lopapi_nn -lascendcl -lnnopbase -o "$bin/bad" 2>&1) && fail "Add linked without libopapi_math"
grep -q "undefined reference to \`aclnnAddGetWorkspaceSize'" <<<"$out" || fail "Add without libopapi_math: $out"
echo "== Add without libopapi_math: fails to link (undefined aclnnAddGetWorkspaceSize), as on an NPU host"
echo "add-mul-samples: add and mul build with CANN's line and pass; the wrong link fails"
