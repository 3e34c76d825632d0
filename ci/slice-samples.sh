#!/usr/bin/env bash
# The slices programs (tests/aclnn/slice_v2.cpp: aclnnSliceV2;
# tests/aclnn/slice_v3.cpp: aclnnSliceV3; tests/aclnn/as_strided.cpp:
# aclnnAsStrided; tests/aclnn/strided_slice_assign_v2.cpp:
# aclnnStridedSliceAssignV2; tests/aclnn/view_copy.cpp: aclnnViewCopy;
# tests/aclnn/strided_slice.cpp: aclnnStridedSlice, refused as on A2; all
# ops-math operators), written as CANN's samples are, built with CANN's documented
# line against `npu-ops sim install` output and run:
#   g++ -std=c++11 -I $ROOT/include -I $ROOT/include/aclnn X.cpp -L $ROOT/lib64 \
#       -lopapi_math -lascendcl -lnnopbase
# plus the legacy umbrella (-lopapi), and a link that must fail as on an NPU
# host (SliceV2 without libopapi_math). Needs a C++ compiler. Modelled on
# ci/view-samples.sh; kept apart (issue 21's slices group, worked on beside
# the gathers) so that it can be hooked into .ci/run alone.
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
fail() { echo "slice-samples: FAIL: $*" >&2; exit 1; }

run() { # name compiler-line...
    local name=$1; shift
    echo "== $name: $*"
    "$@" || fail "$name does not build"
    "$bin/$name" | tail -n 1 || fail "$name failed"
}
for op in slice_v2 slice_v3 as_strided strided_slice_assign_v2 strided_slice; do
    run "$op" "$CXX" -std=c++11 -I "$ROOT/include" -I "$ROOT/include/aclnn" "$src/$op.cpp" \
        -L "$ROOT/lib64" -lopapi_math -lascendcl -lnnopbase -o "$bin/$op"
    run "${op}_legacy" "$CXX" -std=c++11 -I "$ROOT/include" -I "$ROOT/include/aclnn" "$src/$op.cpp" \
        -L "$ROOT/lib64" -lopapi -lascendcl -lnnopbase -o "$bin/${op}_legacy"
done

# ViewCopy as ops-math's examples build it (its sample includes
# "aclnn_view_copy.h" itself: the include line names include/aclnnop).
run view_copy "$CXX" -std=c++11 -I "$ROOT/include" -I "$ROOT/include/aclnnop" "$src/view_copy.cpp" \
    -L "$ROOT/lib64" -lopapi_math -lascendcl -lnnopbase -o "$bin/view_copy"
run view_copy_legacy "$CXX" -std=c++11 -I "$ROOT/include" -I "$ROOT/include/aclnnop" "$src/view_copy.cpp" \
    -L "$ROOT/lib64" -lopapi -lascendcl -lnnopbase -o "$bin/view_copy_legacy"

# SliceV2 lives in libopapi_math.so: without it the link fails, as on an NPU host.
out=$("$CXX" -std=c++11 -I "$ROOT/include" -I "$ROOT/include/aclnn" "$src/slice_v2.cpp" \
    -L "$ROOT/lib64" -lopapi_nn -lascendcl -lnnopbase -o "$bin/bad" 2>&1) && fail "SliceV2 linked without libopapi_math"
grep -q "undefined reference to \`aclnnSliceV2GetWorkspaceSize'" <<<"$out" || fail "SliceV2 without libopapi_math: $out"
echo "== SliceV2 without libopapi_math: fails to link (undefined aclnnSliceV2GetWorkspaceSize), as on an NPU host"
echo "slice-samples: slice_v2, slice_v3, as_strided, strided_slice_assign_v2, strided_slice (refused, as off Ascend 950) and view_copy build with CANN's lines and pass; the wrong link fails"
