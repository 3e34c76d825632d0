//! The simulator's C ABI driven by arbitrary call sequences (see
//! `tests/support/abi_seq.rs`).
#![no_main]

#[path = "../../tests/support/abi_seq.rs"]
mod abi_seq;

libfuzzer_sys::fuzz_target!(|data: &[u8]| abi_seq::run(data));
