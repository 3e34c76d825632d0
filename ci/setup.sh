#!/usr/bin/env bash
# Installs what a fresh machine lacks for the project's checks: the rustfmt
# and clippy components, and libclang (for bindgen, used only by
# ci/check-bindings.sh and the `bindgen` feature). Safe to run repeatedly.
set -euo pipefail

as_root() {
    if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
        echo "ci/setup.sh: need root to run: $*" >&2; return 1; fi
}

for comp in rustfmt clippy; do
    if ! cargo "${comp/rustfmt/fmt}" --version >/dev/null 2>&1; then
        rustup component add "$comp"
    fi
done

have_libclang() {
    [ -n "${LIBCLANG_PATH:-}" ] && return 0
    compgen -G "/usr/lib/llvm-*/lib/libclang.so*" >/dev/null || ldconfig -p 2>/dev/null | grep -q 'libclang[-.0-9]*\.so'
}
if ! have_libclang; then
    echo "ci/setup.sh: installing libclang-dev (for bindgen)"
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq libclang-dev >/dev/null
fi
if ! command -v cc >/dev/null; then
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq gcc >/dev/null
fi
