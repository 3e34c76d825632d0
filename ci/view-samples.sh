#!/usr/bin/env bash
# The slices-and-views programs (tests/aclnn/permute.cpp: aclnnPermute;
# tests/aclnn/repeat.cpp: aclnnRepeat through aclnnop/level2/aclnn_repeat.h;
# roll.cpp, expand.cpp; flip.cpp: aclnnFlip, an ops-nn operator, so
# -lopapi_nn in place of -lopapi_math),
# written as CANN's samples are, built with CANN's documented line against
# `npu-ops sim install` output and run:
#   g++ -std=c++11 -I $ROOT/include -I $ROOT/include/aclnn X.cpp -L $ROOT/lib64 \
#       -lopapi_math -lascendcl -lnnopbase
# plus the legacy umbrella (-lopapi), and a link that must fail as on an NPU
# host (Permute without libopapi_math). Needs a C++ compiler. Modelled on
# ci/add-mul-samples.sh; kept apart (issue 21's slices-and-views group) so
# that it can be hooked in alone.
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
fail() { echo "view-samples: FAIL: $*" >&2; exit 1; }

run() { # name compiler-line...
    local name=$1; shift
    echo "== $name: $*"
    "$@" || fail "$name does not build"
    "$bin/$name" | tail -n 1 || fail "$name failed"
}
for op in permute repeat roll expand; do
    run "$op" "$CXX" -std=c++11 -I "$ROOT/include" -I "$ROOT/include/aclnn" "$src/$op.cpp" \
        -L "$ROOT/lib64" -lopapi_math -lascendcl -lnnopbase -o "$bin/$op"
    run "${op}_legacy" "$CXX" -std=c++11 -I "$ROOT/include" -I "$ROOT/include/aclnn" "$src/$op.cpp" \
        -L "$ROOT/lib64" -lopapi -lascendcl -lnnopbase -o "$bin/${op}_legacy"
done

# Flip is ops-nn's: libopapi_nn.so (and the umbrella).
run flip "$CXX" -std=c++11 -I "$ROOT/include" -I "$ROOT/include/aclnn" "$src/flip.cpp" \
    -L "$ROOT/lib64" -lopapi_nn -lascendcl -lnnopbase -o "$bin/flip"
run flip_legacy "$CXX" -std=c++11 -I "$ROOT/include" -I "$ROOT/include/aclnn" "$src/flip.cpp" \
    -L "$ROOT/lib64" -lopapi -lascendcl -lnnopbase -o "$bin/flip_legacy"

# Permute lives in libopapi_math.so: without it the link fails, as on an NPU host.
out=$("$CXX" -std=c++11 -I "$ROOT/include" -I "$ROOT/include/aclnn" "$src/permute.cpp" \
    -L "$ROOT/lib64" -lopapi_nn -lascendcl -lnnopbase -o "$bin/bad" 2>&1) && fail "Permute linked without libopapi_math"
grep -q "undefined reference to \`aclnnPermuteGetWorkspaceSize'" <<<"$out" || fail "Permute without libopapi_math: $out"
echo "== Permute without libopapi_math: fails to link (undefined aclnnPermuteGetWorkspaceSize), as on an NPU host"
echo "view-samples: permute, repeat, roll, expand and flip build with CANN's lines and pass; the wrong link fails"
