#!/usr/bin/env bash
# Builds test_kernels.c with the kernels and runs it: optimised with
# warnings as errors (also with the portable f32->f16 path), then under
# AddressSanitizer + UBSan. Exits non-zero on any failure. CC overrides the
# compiler (default: cc), CXX the C++ compiler for the header check.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cc="${CC:-cc}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

srcs=("$here"/copy.c "$here"/fill.c "$here"/gather.c "$here"/gather_elements.c "$here"/scatter.c "$here"/gather_nd.c "$here"/masked_select.c "$here"/cast.c "$here"/arith.c "$here"/tri.c "$here"/test_kernels.c)
warn=(-std=c11 -Wall -Wextra -Werror -pedantic -ffp-contract=off -I"$here")

echo "== header compiles as C++"
if command -v "${CXX:-c++}" >/dev/null 2>&1; then
    printf '#include "npu_kernels.h"\nint main() { npu_copy_desc d = npu_copy_desc(); return (int)d.rank; }\n' >"$out/h.cpp"
    "${CXX:-c++}" -x c++ -std=c++11 -Wall -Wextra -Werror -pedantic -fsyntax-only -I"$here" "$out/h.cpp"
    echo ok
else
    echo "no C++ compiler (${CXX:-c++}); skipped"
fi

echo "== -O2"
"$cc" "${warn[@]}" -O2 "${srcs[@]}" -lm -o "$out/test_o2"
"$out/test_o2"

echo "== -O2 -DNPU_F16_INTEGER_ONLY (the f32->f16 path for FLT_EVAL_METHOD != 0)"
"$cc" "${warn[@]}" -O2 -DNPU_F16_INTEGER_ONLY "${srcs[@]}" -lm -o "$out/test_int"
"$out/test_int"

echo "== -fsanitize=address,undefined"
san=(-fsanitize=address,undefined -fno-sanitize-recover=all -O1 -g -fno-omit-frame-pointer)
# Probe first, so a missing runtime gets a clear message instead of a link error.
printf 'int main(void) { return 0; }\n' >"$out/probe.c"
if ! "$cc" "${san[@]}" "$out/probe.c" -o "$out/probe" >"$out/probe.log" 2>&1 || ! "$out/probe"; then
    echo "error: $cc cannot build or run with -fsanitize=address,undefined" >&2
    echo "       (is libasan / libubsan installed? e.g. apt-get install libasan8 libubsan1)" >&2
    cat "$out/probe.log" >&2
    exit 1
fi
"$cc" "${warn[@]}" "${san[@]}" "${srcs[@]}" -lm -o "$out/test_san"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 "$out/test_san"

echo "== all kernel tests passed"
