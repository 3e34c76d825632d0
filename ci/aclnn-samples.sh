#!/usr/bin/env bash
# aclnn programs written as CANN's samples are (tests/aclnn/), built with
# CANN's documented lines against `npu-ops sim install` output and run:
#   g++ -std=c++11 -I $ROOT/include -I $ROOT/include/aclnn X.cpp -L $ROOT/lib64 \
#       -lopapi_math -lascendcl -lnnopbase            (-lopapi_nn for IndexSelect; Cat and Stack are ops-math)
# plus the legacy umbrella (-lopapi), and links that must fail as on an NPU
# host (an operator whose library is missing). Needs a C and C++ compiler.
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
fail() { echo "aclnn-samples: FAIL: $*" >&2; exit 1; }

run() { # name compiler-line...
    local name=$1; shift
    echo "== $name: $*"
    "$@" || fail "$name does not build"
    "$bin/$name" | tail -n 1 || fail "$name failed"
}
run slice "$CXX" -std=c++11 -I "$ROOT/include" -I "$ROOT/include/aclnn" "$src/slice.cpp" \
    -L "$ROOT/lib64" -lopapi_math -lascendcl -lnnopbase -o "$bin/slice"
run index_select "$CXX" -std=c++11 -I "$ROOT/include" -I "$ROOT/include/aclnn" "$src/index_select.cpp" \
    -L "$ROOT/lib64" -lopapi_math -lopapi_nn -lascendcl -lnnopbase -o "$bin/index_select"
run inplace_copy "$CXX" -std=c++11 -I "$ROOT/include" -I "$ROOT/include/aclnn" "$src/inplace_copy.cpp" \
    -L "$ROOT/lib64" -lopapi_math -lascendcl -lnnopbase -o "$bin/inplace_copy"
run constant_pad_nd "$CXX" -std=c++11 -I "$ROOT/include" -I "$ROOT/include/aclnn" "$src/constant_pad_nd.cpp" \
    -L "$ROOT/lib64" -lopapi_math -lascendcl -lnnopbase -o "$bin/constant_pad_nd"
run cat "$CXX" -std=c++11 -I "$ROOT/include" -I "$ROOT/include/aclnn" "$src/cat.cpp" \
    -L "$ROOT/lib64" -lopapi_math -lascendcl -lnnopbase -o "$bin/cat"
run stack "$CXX" -std=c++11 -I "$ROOT/include" -I "$ROOT/include/aclnn" "$src/stack.cpp" \
    -L "$ROOT/lib64" -lopapi_math -lascendcl -lnnopbase -o "$bin/stack"
run fill "$CXX" -std=c++11 -I "$ROOT/include" -I "$ROOT/include/aclnn" "$src/fill.cpp" \
    -L "$ROOT/lib64" -lopapi_math -lascendcl -lnnopbase -o "$bin/fill"
run cast "$CXX" -std=c++11 -I "$ROOT/include" -I "$ROOT/include/aclnn" "$src/cast.cpp" \
    -L "$ROOT/lib64" -lopapi_math -lascendcl -lnnopbase -o "$bin/cast"
run errors_and_executors "$CC" -std=c11 -Wall -Wextra -Werror -I "$ROOT/include" -I "$ROOT/include/aclnn" \
    "$src/errors_and_executors.c" -L "$ROOT/lib64" -lopapi_math -lopapi_nn -lascendcl -lnnopbase \
    -o "$bin/errors_and_executors"
# Programs built for CANN before 8.5 link the umbrella library.
run slice_legacy "$CXX" -std=c++11 -I "$ROOT/include" -I "$ROOT/include/aclnn" "$src/slice.cpp" \
    -L "$ROOT/lib64" -lopapi -lascendcl -lnnopbase -o "$bin/slice_legacy"

# Wrong links fail as on an NPU host: each library exports only its own.
must_not_link() { # what symbol compiler-line...
    local what=$1 sym=$2; shift 2
    local out
    if out=$("$@" 2>&1); then fail "$what linked"; fi
    grep -q "undefined reference to \`$sym'" <<<"$out" || fail "$what: $out"
    echo "== $what: fails to link (undefined $sym), as on an NPU host"
}
must_not_link "IndexSelect without libopapi_nn" aclnnIndexSelectGetWorkspaceSize \
    "$CXX" -std=c++11 -I "$ROOT/include" -I "$ROOT/include/aclnn" "$src/index_select.cpp" \
    -L "$ROOT/lib64" -lopapi_math -lascendcl -lnnopbase -o "$bin/bad"
must_not_link "tensors without libnnopbase" aclCreateTensor \
    "$CXX" -std=c++11 -I "$ROOT/include" -I "$ROOT/include/aclnn" "$src/slice.cpp" \
    -L "$ROOT/lib64" -lopapi_math -lascendcl -o "$bin/bad"
must_not_link "the runtime from libopapi_math alone" aclInit \
    "$CXX" -std=c++11 -I "$ROOT/include" -I "$ROOT/include/aclnn" "$src/slice.cpp" \
    -L "$ROOT/lib64" -lopapi_math -lnnopbase -o "$bin/bad"

# Every library names itself, and the headers compile alone as C and C++.
for lib in libascendcl.so libacl_rt.so libnnopbase.so libopapi_math.so libopapi_nn.so libopapi.so; do
    readelf -d "$ROOT/lib64/$lib" | grep -q "SONAME.*\[$lib\]" || fail "$lib has no SONAME"
done
while IFS= read -r h; do
    printf '#include "%s"\nint main(void) { return 0; }\n' "$h" >"$bin/h.c"
    "$CC" -std=c11 -Wall -Wextra -Werror -pedantic -I "$ROOT/include" -fsyntax-only "$bin/h.c" || fail "$h as C"
    cp "$bin/h.c" "$bin/h.cpp"
    "$CXX" -std=c++11 -Wall -Wextra -Werror -pedantic -I "$ROOT/include" -fsyntax-only "$bin/h.cpp" || fail "$h as C++"
done < <(cd "$ROOT/include" && find . -name '*.h' | sed 's|^\./||' | sort)
echo "aclnn-samples: every sample builds with CANN's lines and passes; wrong links fail; headers compile alone"
