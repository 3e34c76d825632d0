#!/usr/bin/env bash
# The gathers programs (tests/aclnn/gather_v2.cpp: aclnnGatherV2;
# gather.cpp: aclnnGather; take.cpp: aclnnTake; index_copy.cpp:
# aclnnIndexCopy and aclnnInplaceIndexCopy; gather_nd.cpp: aclnnGatherNd;
# index.cpp: aclnnIndex; all ops-nn operators, so -lopapi_nn; masked_select.cpp: aclnnMaskedSelect,
# an ops-math operator, so -lopapi_math), written as CANN's samples are,
# built with CANN's documented line against `npu-ops sim install` output
# and run:
#   g++ -std=c++11 -I $ROOT/include -I $ROOT/include/aclnn X.cpp -L $ROOT/lib64 \
#       -lopapi_nn -lascendcl -lnnopbase
# plus the legacy umbrella (-lopapi), and a link that must fail as on an NPU
# host (GatherV2 without libopapi_nn). Needs a C++ compiler. Modelled on
# ci/view-samples.sh; kept apart (issue 21's gathers group) so that it can
# be hooked in alone.
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
fail() { echo "gather-samples: FAIL: $*" >&2; exit 1; }

run() { # name compiler-line...
    local name=$1; shift
    echo "== $name: $*"
    "$@" || fail "$name does not build"
    "$bin/$name" | tail -n 1 || fail "$name failed"
}

# The ops-nn gathers: libopapi_nn.so (and the umbrella).
for op in gather_v2 gather take index_copy gather_nd index; do
    run "$op" "$CXX" -std=c++11 -I "$ROOT/include" -I "$ROOT/include/aclnn" "$src/$op.cpp" \
        -L "$ROOT/lib64" -lopapi_nn -lascendcl -lnnopbase -o "$bin/$op"
    run "${op}_legacy" "$CXX" -std=c++11 -I "$ROOT/include" -I "$ROOT/include/aclnn" "$src/$op.cpp" \
        -L "$ROOT/lib64" -lopapi -lascendcl -lnnopbase -o "$bin/${op}_legacy"
done

# MaskedSelect is ops-math's: libopapi_math.so (and the umbrella).
run masked_select "$CXX" -std=c++11 -I "$ROOT/include" -I "$ROOT/include/aclnn" "$src/masked_select.cpp" \
    -L "$ROOT/lib64" -lopapi_math -lascendcl -lnnopbase -o "$bin/masked_select"
run masked_select_legacy "$CXX" -std=c++11 -I "$ROOT/include" -I "$ROOT/include/aclnn" "$src/masked_select.cpp" \
    -L "$ROOT/lib64" -lopapi -lascendcl -lnnopbase -o "$bin/masked_select_legacy"

# GatherV2 lives in libopapi_nn.so: without it the link fails, as on an NPU host.
out=$("$CXX" -std=c++11 -I "$ROOT/include" -I "$ROOT/include/aclnn" "$src/gather_v2.cpp" \
    -L "$ROOT/lib64" -lopapi_math -lascendcl -lnnopbase -o "$bin/bad" 2>&1) && fail "GatherV2 linked without libopapi_nn"
grep -q "undefined reference to \`aclnnGatherV2GetWorkspaceSize'" <<<"$out" || fail "GatherV2 without libopapi_nn: $out"
echo "== GatherV2 without libopapi_nn: fails to link (undefined aclnnGatherV2GetWorkspaceSize), as on an NPU host"
echo "gather-samples: gather_v2, gather, take, index_copy, gather_nd, index and masked_select build with CANN's lines and pass; the wrong link fails"
