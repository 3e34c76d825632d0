//! The tools of [`npu_ops`]: the conformance case format and runner
//! ([`conformance`]), the launch benchmarks ([`bench`](mod@bench)) and the simulator
//! laid out as a CANN installation ([`sim_root`]). The `npu-ops` command
//! of this package drives them; a fleet's own harness can embed them.

pub mod bench;
pub mod conformance;
pub mod sim_root;
