#!/usr/bin/env bash
# The C kernels and the simulator under AddressSanitizer and
# UndefinedBehaviorSanitizer; any report fails (nothing recovers).
#   1. crates/npu-sim/kernels/run-tests.sh: the kernels' own tests, built with gcc's
#      -fsanitize=address,undefined;
#   2. the simulator's tests (its C ABI misuses included), the safe layer's
#      trust, runtime and shared-stream fault tests and the fuzz regression
#      replay, with Rust's AddressSanitizer (nightly)
#      and the C kernels compiled with -fsanitize=undefined.
# Needs the nightly toolchain (this machine image has it).
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== kernels: C tests under ASan + UBSan"
bash crates/npu-sim/kernels/run-tests.sh
if ! rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
    echo "ci/sanitize.sh: needs the nightly toolchain (rustup toolchain install nightly)" >&2
    exit 1
fi
host=$(rustc -vV | sed -n 's/^host: //p')
export RUSTFLAGS="-Zsanitizer=address" RUSTDOCFLAGS="-Zsanitizer=address"
export CFLAGS="-fsanitize=undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
export ASAN_OPTIONS="allocator_may_return_null=1:detect_leaks=0:abort_on_error=1:detect_stack_use_after_return=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export CARGO_TARGET_DIR=target/sanitize
echo "== simulator: Rust ASan, C UBSan"
cargo +nightly test --quiet --target "$host" -p npu-ops-sim --lib --test protocol --test ops --test hostile --test misuse --test misuse_lifecycle
echo "== safe layer on the simulator: Rust ASan, C UBSan"
cargo +nightly test --quiet --target "$host" -p npu-ops --test trust --test runtime \
    --test shared_faults --test fault_edges
cargo +nightly test --quiet --target "$host" -p npu-ops-cli --test fuzz_regressions
echo "== sanitizers: clean"
