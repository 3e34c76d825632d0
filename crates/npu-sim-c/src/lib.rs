//! `libnpu_sim_c.so`: the simulator (`npu-sim`) as a shared library that
//! exports CANN's C symbol names (`aclInit`, `aclrtMalloc`,
//! `aclnnSliceGetWorkspaceSize`, ...) and the simulator's own entry points
//! (`npuSimGetStats`, ...). It is what a simulated CANN root's `lib64/`
//! holds. Rust programs link `npu-sim` itself, which exports none of them.

// Linking the crate is what exports its `no_mangle` functions.
pub use npu_sim::*;
