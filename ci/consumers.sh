#!/usr/bin/env bash
# Builds the crates of tests/consumers/ as users would (each its own
# workspace) and checks what they contain and export; see
# tests/consumers/README.md. Exits non-zero on the first broken promise.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
target="$top/target/consumers"
fail() { echo "consumers: FAIL: $*" >&2; exit 1; }
build() { # crate [cargo args...]
    local crate=$1; shift
    cp Cargo.lock "tests/consumers/$crate/Cargo.lock"
    cargo build --quiet --manifest-path "tests/consumers/$crate/Cargo.toml" --target-dir "$target" "$@"
}
count() { grep -c -E "$1" || true; }

echo "== service (default-features = false)"
(unset ASCEND_HOME_PATH ASCEND_TOOLKIT_HOME; build service)
bin="$target/debug/service"
syms=$(nm "$bin")
[ "$(count 'npu_ops' <<<"$syms")" -gt 0 ] || fail "service: no npu_ops symbol (the check would prove nothing)"
n=$(count 'npu_sim|npu_kernels|npu_copy_|npu_gather_|npu_cast_|npu_fill' <<<"$syms")
[ "$n" = 0 ] || fail "service: $n simulator or kernel symbols in a build without the sim feature"
n=$(count ' [TtDdBb] acl' <<<"$syms")
[ "$n" = 0 ] || fail "service: defines $n acl* symbols"
env -u ASCEND_HOME_PATH -u ASCEND_TOOLKIT_HOME "$bin"
echo "service: npu-ops without simulator code or CANN symbols; Auto without CANN is an error"

echo "== plugin (cdylib, default features)"
build plugin
so="$target/debug/libplugin.so"
[ "$(nm "$so" | count 'npu_sim')" -gt 0 ] || fail "plugin: the simulator is not inside (the check would prove nothing)"
n=$(nm -D --defined-only "$so" | count ' acl')
[ "$n" = 0 ] || fail "plugin: exports $n acl* symbols: $(nm -D --defined-only "$so" | grep ' acl' | head -5 | tr '\n' ' ')"
n=$(nm -D --defined-only "$so" | count ' npu_|npuSim')
[ "$n" = 0 ] || fail "plugin: exports $n simulator or kernel symbols"
python3 -c 'import ctypes,sys; sys.exit(ctypes.CDLL(sys.argv[1]).plugin_selftest())' "$so" \
    || fail "plugin: selftest through dlopen failed"
echo "plugin: simulator inside, 0 acl* exports, runs through dlopen"

echo "== linked (features = [\"link\"])"
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
bash ci/sim-cann-root.sh "$root" >/dev/null
ASCEND_HOME_PATH="$root" build linked
bin="$target/debug/linked"
readelf -d "$bin" | grep -q 'NEEDED.*libascendcl.so' || fail "linked: libascendcl.so is not a load-time dependency"
if env -u LD_LIBRARY_PATH "$bin" >/dev/null 2>&1; then fail "linked: started without CANN on the library path"; fi
LD_LIBRARY_PATH="$root/lib64" "$bin"
out=$(env -u ASCEND_HOME_PATH -u ASCEND_TOOLKIT_HOME \
    cargo build --manifest-path tests/consumers/linked/Cargo.toml --target-dir "$target/nocann" 2>&1) \
    && fail "linked: built with the link feature and no CANN"
grep -q 'no CANN runtime library' <<<"$out" || fail "linked: the build error does not say why: $out"
echo "linked: needs libascendcl.so at load time, runs on it; no CANN fails the build, naming the folders searched"
echo "consumers: all checks passed"
