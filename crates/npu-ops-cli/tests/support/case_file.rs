//! The `case_reader` fuzz target's body (shared with the regression replay
//! in `tests/fuzz_regressions.rs`): the conformance runner on arbitrary
//! case files: the bytes are written as
//! one `*.jsonl` file (read back through the same folder walk the runner
//! uses), its cases run on the simulator. Whatever the bytes, the runner
//! must report every line (a case or a malformed line), never panic (a
//! panicking case is reported as such, which is a finding here) and never
//! crash; a case may not allocate more than a small bound.
use npu_ops::Backend;
use npu_ops_cli::conformance::{self, Options};

/// Reads and runs `data` as a case file; panics on a finding.
pub fn run(data: &[u8]) {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("cases.jsonl");
    std::fs::write(&file, data).expect("write");
    let (cases, malformed) = conformance::load(&[dir.path().to_path_buf()]);
    // Every non-blank, non-comment line is accounted for.
    // Every line that is not blank or a comment is a case or malformed:
    // the runner's rule, written again independently.
    let body = data.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(data);
    let lines = body
        .split(|&b| b == b'\n')
        .map(|l| l.trim_ascii())
        .filter(|l| !l.is_empty() && !l.starts_with(b"//"))
        .count();
    assert!(
        cases.len() + malformed.len() == lines,
        "{} lines, {} cases, {} malformed",
        lines,
        cases.len(),
        malformed.len()
    );
    if cases.len() > 4 {
        return; // parsing is the point of long inputs; running is slower
    }
    let opts = Options {
        backend: Backend::Simulator,
        case_memory: Some(64 << 20),
        ..Options::default()
    };
    let report = conformance::run(&cases, &malformed, &opts, || {}).expect("the run starts");
    for o in &report.outcomes {
        assert!(!o.reason.contains("panicked"), "{}: {}", o.id, o.reason);
    }
    assert_eq!(
        npu_sim::stats().internal_errors,
        0,
        "a panic was caught inside the simulator"
    );
}
