//! The conformance runner on arbitrary case files (see
//! `crates/npu-ops-cli/tests/support/case_file.rs`).
#![no_main]

#[path = "../../crates/npu-ops-cli/tests/support/case_file.rs"]
mod case_file;

libfuzzer_sys::fuzz_target!(|data: &[u8]| case_file::run(data));
