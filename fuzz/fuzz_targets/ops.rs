//! Every operator through the safe layer on arbitrary views, dtypes and
//! parameters (plain, `_into` with aliasing outputs, prepared), against
//! cpu-ref: the same bits or the same error kind. The input bytes are the
//! oracle's random choices.
#![no_main]

#[path = "../../tests/support/oracle.rs"]
mod oracle;

use libfuzzer_sys::fuzz_target;
use npu_ops::{Backend, Runtime, Stream};
use std::sync::OnceLock;

fn stream() -> &'static Stream {
    static S: OnceLock<Stream> = OnceLock::new();
    S.get_or_init(|| {
        Runtime::new(Backend::Simulator)
            .and_then(|rt| rt.stream())
            .expect("simulator stream")
    })
}

fuzz_target!(|data: &[u8]| {
    let s = stream();
    if let oracle::Verdict::Mismatch(m) = oracle::run_case(&mut oracle::Bytes(data), s, true) {
        panic!("{m}");
    }
    assert_eq!(npu_sim::stats().internal_errors, 0, "a panic was caught inside the simulator");
});
