#!/usr/bin/env bash
# Runtime behaviour CANN's own programs rely on (issue 19, item 1), checked
# with programs in CANN's style (tests/aclnn/) built against
# `npu-ops sim install` output the way ci/aclnn-samples.sh builds the
# operator samples:
#   - aclrtGetSocName before aclInit (CANN's sample build setup runs such a
#     program to find SOC_VERSION), for the default SoC and NPU_SIM_SOC;
#   - aclrtMalloc's padding (ALIGN_UP(size, 32) + 32): 32 bytes copied back
#     from a 16-byte output succeed, as on the device (and are refused with
#     NPU_SIM_STRICT_MEMORY=1); past the padding a copy fails with 107000.
# Needs a C and C++ compiler.
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
CC=${CC:-cc}
src=tests/aclnn
fail() { echo "runtime-behaviour: FAIL: $*" >&2; exit 1; }

build() { # name compiler-line...
    local name=$1; shift
    echo "== $name: $*"
    "$@" || fail "$name does not build"
}
build soc_name_before_init "$CC" -std=c11 -Wall -Wextra -Werror -I "$ROOT/include" \
    "$src/soc_name_before_init.c" -L "$ROOT/lib64" -lascendcl -o "$bin/soc_name_before_init"
build slice_padding "$CXX" -std=c++11 -I "$ROOT/include" -I "$ROOT/include/aclnn" "$src/slice_padding.cpp" \
    -L "$ROOT/lib64" -lopapi_math -lascendcl -lnnopbase -o "$bin/slice_padding"
build padding_overrun "$CC" -std=c11 -Wall -Wextra -Werror -I "$ROOT/include" \
    "$src/padding_overrun.c" -L "$ROOT/lib64" -lascendcl -o "$bin/padding_overrun"

# SOC_VERSION as CANN's sample setup finds it: the first line, no aclInit.
soc=$(env -u NPU_SIM_SOC "$bin/soc_name_before_init" | head -n 1) || fail "soc_name_before_init failed"
[ "$soc" = Ascend910B3 ] || fail "default SoC before aclInit: '$soc'"
out=$(NPU_SIM_SOC=Ascend310P3 "$bin/soc_name_before_init") || fail "soc_name_before_init (Ascend310P3) failed: $out"
[ "$(head -n 1 <<<"$out")" = Ascend310P3 ] || fail "NPU_SIM_SOC before aclInit: $out"
tail -n 1 <<<"$out"
echo "== SOC_VERSION=$soc (default), Ascend310P3 (NPU_SIM_SOC)"

# The padding: allowed (a memcheck warning on stderr), refused when strict.
out=$("$bin/slice_padding" 2>"$bin/warn") || fail "slice_padding failed: $out"
tail -n 1 <<<"$out"
grep -q "npu-sim memcheck: warning" "$bin/warn" || fail "no memcheck warning for the padding access"
if out=$(NPU_SIM_STRICT_MEMORY=1 "$bin/slice_padding" 2>&1); then
    fail "slice_padding passed with NPU_SIM_STRICT_MEMORY=1"
fi
grep -q "ERROR: 107000" <<<"$out" || fail "strict memory: $out"
echo "== slice_padding with NPU_SIM_STRICT_MEMORY=1: refused (107000)"
out=$("$bin/padding_overrun" 2>/dev/null) || fail "padding_overrun failed: $out"
tail -n 1 <<<"$out"
echo "runtime-behaviour: SoC name before aclInit; aclrtMalloc's padding allowed, refused when strict, bounded"
