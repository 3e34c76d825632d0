//! `npu-ops`: safe, fast data-movement operators for Huawei Ascend NPUs.
//!
//! The safe layer arrives in a later step; for now this crate re-exports
//! the raw FFI ([`cann_sys`]).

/// Raw FFI and the run-time CANN loader.
pub use cann_sys;
