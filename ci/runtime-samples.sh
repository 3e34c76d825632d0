#!/usr/bin/env bash
# Host-only runtime programs written as CANN's runtime examples are
# (tests/runtime/), built against `npu-ops sim install` output with the
# examples' plain line and run:
#   g++ -std=c++11 -I $ASCEND_HOME_PATH/include X.cpp -L $ASCEND_HOME_PATH/lib64 -lascendcl -lpthread
# and with CANN 9's runtime library name (-lacl_rt) in place of libascendcl.
# Each program checks its results and ends by printing "<name>: ok".
# tests/runtime/alog.cpp, the log library, links -lascendalog.
# Needs a C++ compiler.
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
src=tests/runtime
fail() { echo "runtime-samples: FAIL: $*" >&2; exit 1; }

run() { # name compiler-line...
    local name=$1; shift
    echo "== $name: $*"
    "$@" || fail "$name does not build"
    local out
    out=$(timeout 120 "$bin/$name") || fail "$name failed: $out"
    tail -n 1 <<<"$out"
    [ "$(tail -n 1 <<<"$out")" = "${name%_acl_rt}: ok" ] || fail "$name did not end with '${name%_acl_rt}: ok'"
}
run runtime_calls "$CXX" -std=c++11 -Wall -Wextra -Werror -I "$ROOT/include" "$src/runtime_calls.cpp" \
    -L "$ROOT/lib64" -lascendcl -lpthread -o "$bin/runtime_calls"
run runtime_calls_acl_rt "$CXX" -std=c++11 -Wall -Wextra -Werror -I "$ROOT/include" "$src/runtime_calls.cpp" \
    -L "$ROOT/lib64" -lacl_rt -lpthread -o "$bin/runtime_calls_acl_rt"
run capture "$CXX" -std=c++11 -Wall -Wextra -Werror -I "$ROOT/include" "$src/capture.cpp" \
    -L "$ROOT/lib64" -lascendcl -lpthread -o "$bin/capture"
run capture_acl_rt "$CXX" -std=c++11 -Wall -Wextra -Werror -I "$ROOT/include" "$src/capture.cpp" \
    -L "$ROOT/lib64" -lacl_rt -lpthread -o "$bin/capture_acl_rt"
# Under strict asynchrony every task goes through its stream's worker.
for name in runtime_calls capture; do
    NPU_SIM_STRICT_ASYNC=1 "$bin/$name" | tail -n 1 | grep -qx "$name: ok" \
        || fail "$name under NPU_SIM_STRICT_ASYNC=1"
    echo "== $name (NPU_SIM_STRICT_ASYNC=1): ok"
done
# The rest of the host-only examples' calls, by area (two devices for peer
# access), with both library names and under strict asynchrony.
export NPU_SIM_DEVICES=2
run runtime_tail "$CXX" -std=c++11 -Wall -Wextra -Werror -I "$ROOT/include" "$src/runtime_tail.cpp" \
    -L "$ROOT/lib64" -lascendcl -lpthread -o "$bin/runtime_tail"
run runtime_tail_acl_rt "$CXX" -std=c++11 -Wall -Wextra -Werror -I "$ROOT/include" "$src/runtime_tail.cpp" \
    -L "$ROOT/lib64" -lacl_rt -lpthread -o "$bin/runtime_tail_acl_rt"
NPU_SIM_STRICT_ASYNC=1 "$bin/runtime_tail" | tail -n 1 | grep -qx "runtime_tail: ok" \
    || fail "runtime_tail under NPU_SIM_STRICT_ASYNC=1"
echo "== runtime_tail (NPU_SIM_STRICT_ASYNC=1): ok"
# Built models and labels (aclmdlRIBuildBegin, aclrtSwitchLabelByIndex).
run models "$CXX" -std=c++11 -Wall -Wextra -Werror -I "$ROOT/include" "$src/models.cpp" \
    -L "$ROOT/lib64" -lascendcl -lpthread -o "$bin/models"
run models_acl_rt "$CXX" -std=c++11 -Wall -Wextra -Werror -I "$ROOT/include" "$src/models.cpp" \
    -L "$ROOT/lib64" -lacl_rt -lpthread -o "$bin/models_acl_rt"
NPU_SIM_STRICT_ASYNC=1 "$bin/models" | tail -n 1 | grep -qx "models: ok" \
    || fail "models under NPU_SIM_STRICT_ASYNC=1"
echo "== models (NPU_SIM_STRICT_ASYNC=1): ok"
# The last areas: stream memory operations, built-in tasks, the registered
# allocator, saturation and overflow, aclrtMemset on host memory.
run runtime_tail2 "$CXX" -std=c++11 -Wall -Wextra -Werror -I "$ROOT/include" "$src/runtime_tail2.cpp" \
    -L "$ROOT/lib64" -lascendcl -lpthread -o "$bin/runtime_tail2"
run runtime_tail2_acl_rt "$CXX" -std=c++11 -Wall -Wextra -Werror -I "$ROOT/include" "$src/runtime_tail2.cpp" \
    -L "$ROOT/lib64" -lacl_rt -lpthread -o "$bin/runtime_tail2_acl_rt"
NPU_SIM_STRICT_ASYNC=1 "$bin/runtime_tail2" | tail -n 1 | grep -qx "runtime_tail2: ok" \
    || fail "runtime_tail2 under NPU_SIM_STRICT_ASYNC=1"
echo "== runtime_tail2 (NPU_SIM_STRICT_ASYNC=1): ok"
# More memory calls (aclrtMallocAlign32, aclrtMemsetD32, offset and 2D copies,
# aclrtGetDeviceInfo), with both library names and under strict asynchrony.
run runtime_memory "$CXX" -std=c++11 -Wall -Wextra -Werror -I "$ROOT/include" "$src/runtime_memory.cpp" \
    -L "$ROOT/lib64" -lascendcl -lpthread -o "$bin/runtime_memory"
run runtime_memory_acl_rt "$CXX" -std=c++11 -Wall -Wextra -Werror -I "$ROOT/include" "$src/runtime_memory.cpp" \
    -L "$ROOT/lib64" -lacl_rt -lpthread -o "$bin/runtime_memory_acl_rt"
NPU_SIM_STRICT_ASYNC=1 "$bin/runtime_memory" | tail -n 1 | grep -qx "runtime_memory: ok" \
    || fail "runtime_memory under NPU_SIM_STRICT_ASYNC=1"
echo "== runtime_memory (NPU_SIM_STRICT_ASYNC=1): ok"
# The device, system and synchronisation extras (callbacks, identity,
# timeouts, system parameters, notifies, groups, snapshots).
run runtime_device "$CXX" -std=c++11 -Wall -Wextra -Werror -I "$ROOT/include" "$src/runtime_device.cpp" \
    -L "$ROOT/lib64" -lascendcl -lpthread -o "$bin/runtime_device"
run runtime_device_acl_rt "$CXX" -std=c++11 -Wall -Wextra -Werror -I "$ROOT/include" "$src/runtime_device.cpp" \
    -L "$ROOT/lib64" -lacl_rt -lpthread -o "$bin/runtime_device_acl_rt"
NPU_SIM_STRICT_ASYNC=1 "$bin/runtime_device" | tail -n 1 | grep -qx "runtime_device: ok" \
    || fail "runtime_device under NPU_SIM_STRICT_ASYNC=1"
echo "== runtime_device (NPU_SIM_STRICT_ASYNC=1): ok"
# The log library: base/acl_log.h, linked against libascendalog.so alone,
# records printed to standard output at INFO and above.
echo "== alog"
"$CXX" -std=c++11 -Wall -Wextra -Werror -I "$ROOT/include" "$src/alog.cpp" \
    -L "$ROOT/lib64" -lascendalog -o "$bin/alog" || fail "alog does not build"
out=$(ASCEND_SLOG_PRINT_TO_STDOUT=1 ASCEND_GLOBAL_LOG_LEVEL=1 timeout 60 "$bin/alog") \
    || fail "alog failed: $out"
[ "$(tail -n 1 <<<"$out")" = "[INFO]  alog: ok" ] || fail "alog did not end with 'alog: ok': $out"
for want in '^\[INFO\] 65281\([0-9]+,alog\):.* alog sample: 42 text 1\.5$' \
    '^\[INFO\] 65281\(.* alog sample: run 7$' \
    '^\[ERROR\] 65281\(.* alog sample: host record$'; do
    grep -Eq "$want" <<<"$out" || fail "alog: no line matching $want: $out"
done
[ "$(grep -c 'alog sample: va_list twice 2$' <<<"$out")" = 2 ] || fail "alog: the va_list form: $out"
! grep -q 'below the level\|never' <<<"$out" || fail "alog: a filtered record was printed: $out"
echo "alog: ok"
echo "runtime-samples: every runtime sample builds with CANN's line and passes"
