#!/usr/bin/env bash
# The aclnnTril/aclnnTriu, aclnnSplitTensor/aclnnSplitWithSize and
# aclnnEmbedding programs (tests/aclnn/tril.cpp, split.cpp, embedding.cpp), written as CANN's samples are, built with CANN's documented
# line against `npu-ops sim install` output and run:
#   g++ -std=c++11 -I $ROOT/include -I $ROOT/include/aclnn X.cpp -L $ROOT/lib64 \
#       -lopapi_math -lascendcl -lnnopbase
# plus the legacy umbrella (-lopapi), and a link that must fail as on an NPU
# host (Tril without libopapi_math). Needs a C++ compiler. Modelled on
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
fail() { echo "tril-split-samples: FAIL: $*" >&2; exit 1; }

run() { # name compiler-line...
    local name=$1; shift
    echo "== $name: $*"
    "$@" || fail "$name does not build"
    "$bin/$name" | tail -n 1 || fail "$name failed"
}
ops=(tril split)
for op in "${ops[@]}"; do
    run "$op" "$CXX" -std=c++11 -I "$ROOT/include" -I "$ROOT/include/aclnn" "$src/$op.cpp" \
        -L "$ROOT/lib64" -lopapi_math -lascendcl -lnnopbase -o "$bin/$op"
    run "${op}_legacy" "$CXX" -std=c++11 -I "$ROOT/include" -I "$ROOT/include/aclnn" "$src/$op.cpp" \
        -L "$ROOT/lib64" -lopapi -lascendcl -lnnopbase -o "$bin/${op}_legacy"
done

# Embedding is an ops-nn operator: CANN's line names libopapi_nn.
run embedding "$CXX" -std=c++11 -I "$ROOT/include" -I "$ROOT/include/aclnn" "$src/embedding.cpp" \
    -L "$ROOT/lib64" -lopapi_nn -lascendcl -lnnopbase -o "$bin/embedding"
run embedding_legacy "$CXX" -std=c++11 -I "$ROOT/include" -I "$ROOT/include/aclnn" "$src/embedding.cpp" \
    -L "$ROOT/lib64" -lopapi -lascendcl -lnnopbase -o "$bin/embedding_legacy"

# Tril lives in libopapi_math.so: without it the link fails, as on an NPU host.
out=$("$CXX" -std=c++11 -I "$ROOT/include" -I "$ROOT/include/aclnn" "$src/tril.cpp" \
    -L "$ROOT/lib64" -lopapi_nn -lascendcl -lnnopbase -o "$bin/bad" 2>&1) && fail "Tril linked without libopapi_math"
grep -q "undefined reference to \`aclnn" <<<"$out" || fail "Tril without libopapi_math: $out"
echo "== Tril without libopapi_math: fails to link, as on an NPU host"
echo "tril-split-samples: ${ops[*]} embedding build with CANN's line and pass; the wrong link fails"
