//! Hostile inputs to the conformance tools: cases whose few bytes ask the
//! runner for gigabytes of host memory (the `--case-memory` bound covers
//! every host allocation a case makes), and reports that are not a whole
//! run (`npu-ops report merge` refuses them, naming the file and the rule).

use npu_ops::conformance::{self, parse_case, Options, Status};
use npu_ops::Backend;
use serial_test::serial;
use std::path::{Path, PathBuf};
use std::process::Command;

const EXE: &str = env!("CARGO_BIN_EXE_npu-ops");

fn sim(case_memory: usize) -> Options {
    Options {
        backend: Backend::Simulator,
        case_memory: Some(case_memory),
        ..Options::default()
    }
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// 1 element of storage read as 2^32 elements: the issue's `subtensor` line
/// (4.2 GB of host memory for its read-back).
const BROADCAST_SUBTENSOR: &str = r#"{"id":"bcast","op":"subtensor","input":{"dtype":"int8","shape":[1],"data":[7],"view":{"shape":[1048576,4096],"strides":[0,0],"offset":0}},"params":{"start_coord":[0],"first_out_dim_size":1048576},"expect":{"error":"invalid_argument"}}"#;

/// A broadcast index of 2^30 int64 values over one: the checked
/// IndexSelect reads it back to the host (8 GiB and more).
const BROADCAST_INDEX: &str = r#"{"id":"index","op":"index_select","input":{"dtype":"int8","shape":[2],"data":[1,2]},"params":{"dim":0,"index":{"dtype":"int64","shape":[1],"data":[0],"view":{"shape":[1073741824],"strides":[0],"offset":0}}},"expect":{"error":"invalid_argument"}}"#;

/// A sampled slice of 2^28 coordinates the blocks cannot express (WRAP
/// over 2 elements): its index lists on the host take gigabytes.
const LONG_WRAP: &str = r#"{"id":"wrap","op":"sampled_slice","input":{"dtype":"int8","shape":[2],"data":[1,2]},"params":{"start":[0],"size":[268435456],"stride":[1],"mode":"wrap"},"expect":{"error":"invalid_argument"}}"#;

fn cases(lines: &[&str]) -> Vec<conformance::Case> {
    lines
        .iter()
        .map(|l| parse_case(l, "t:1").unwrap())
        .collect()
}

#[test]
#[serial]
fn host_allocations_of_a_case_count_against_the_case_memory_bound() {
    let r = conformance::run(
        &cases(&[BROADCAST_SUBTENSOR, BROADCAST_INDEX, LONG_WRAP]),
        &[],
        &sim(64 << 20),
        || {},
    )
    .unwrap();
    assert_eq!(r.outcomes.len(), 3);
    for o in &r.outcomes {
        assert_eq!(o.status, Status::Failed, "{}: {}", o.id, o.reason);
        assert_eq!(o.observed, "memory_limit", "{}: {}", o.id, o.reason);
        assert!(
            o.reason.contains("host memory")
                && o.reason.contains("--case-memory")
                && o.reason.contains(&(64usize << 20).to_string()),
            "{}: {}",
            o.id,
            o.reason
        );
    }
    assert!(r.outcomes[0].reason.contains("reading the result back"));
    assert!(r.outcomes[1].reason.contains("reading the index back"));
    assert!(r.outcomes[2].reason.contains("index lists"));
}

#[test]
#[serial]
fn within_the_bound_broadcast_views_pass_and_refused_calls_keep_their_verdict() {
    let ok = [
        // A broadcast sub-tensor that fits: 4 x 8 reads of one element.
        r#"{"id":"small-bcast","op":"subtensor","input":{"dtype":"int8","shape":[1],"data":[7],"view":{"shape":[4,8],"strides":[0,0],"offset":0}},"params":{"start_coord":[1],"first_out_dim_size":2},"expect":{"dtype":"int8","shape":[2,8],"data":[7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7]}}"#,
        // A broadcast index that fits.
        r#"{"id":"small-index","op":"index_select","input":{"dtype":"int8","shape":[2],"data":[1,2]},"params":{"dim":0,"index":{"dtype":"int64","shape":[1],"data":[1],"view":{"shape":[3],"strides":[0],"offset":0}}},"expect":{"dtype":"int8","shape":[3],"data":[2,2,2]}}"#,
        // Calls the operator refuses are refused before anything is
        // counted: a bad dim with a huge broadcast index, a STRICT_BOUNDS
        // window far past its input.
        r#"{"id":"bad-dim","op":"index_select","input":{"dtype":"int8","shape":[2],"data":[1,2]},"params":{"dim":3,"index":{"dtype":"int64","shape":[1],"data":[0],"view":{"shape":[1073741824],"strides":[0],"offset":0}}},"expect":{"error":"invalid_argument"}}"#,
        r#"{"id":"strict","op":"sampled_slice","input":{"dtype":"int8","shape":[2],"data":[1,2]},"params":{"start":[0],"size":[268435456],"stride":[1],"mode":"strict_bounds"},"expect":{"error":"invalid_argument"}}"#,
        r#"{"id":"too-big","op":"sampled_slice","input":{"dtype":"int8","shape":[2],"data":[1,2]},"params":{"start":[0],"size":[9223372036854775807],"stride":[0],"mode":"wrap"},"expect":{"error":"invalid_argument"}}"#,
    ];
    let r = conformance::run(&cases(&ok), &[], &sim(64 << 20), || {}).unwrap();
    for o in &r.outcomes {
        assert_eq!(o.status, Status::Passed, "{}: {}", o.id, o.reason);
    }
    assert_eq!(r.outcomes.len(), ok.len());
}

/// Runs `npu-ops` and returns (exit status, stdout, peak resident set in
/// KiB), the peak read from the child's own `rusage`.
#[cfg(target_os = "linux")]
fn run_measured(args: &[&std::ffi::OsStr]) -> (i32, String, i64) {
    use std::io::Read;
    let mut child = Command::new(EXE)
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    let mut status = 0;
    // SAFETY: an all-zero rusage is valid; wait4 reaps our own child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    assert_eq!(pid, child.id() as i32);
    assert!(libc::WIFEXITED(status), "status {status}");
    (libc::WEXITSTATUS(status), out, usage.ru_maxrss)
}

#[cfg(target_os = "linux")]
#[test]
#[serial]
fn the_issue_subtensor_line_stays_within_case_memory() {
    let dir = tempfile::TempDir::new().unwrap();
    let file = write(dir.path(), "bcast.jsonl", BROADCAST_SUBTENSOR);
    assert!(BROADCAST_SUBTENSOR.len() < 300);
    let report = dir.path().join("r.json");
    let (code, out, peak_kib) = run_measured(&[
        "conformance".as_ref(),
        "--backend".as_ref(),
        "sim".as_ref(),
        "--case-memory".as_ref(),
        "64M".as_ref(),
        file.as_os_str(),
        "--report".as_ref(),
        report.as_os_str(),
    ]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(
            "bcast: the case needs more host memory than one case may hold (67108864 bytes"
        ),
        "{out}"
    );
    let j: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(j["cases"][0]["observed"], "memory_limit");
    // The read-back would be 4 GiB; the whole process stays far below it
    // (the bound, 64 MiB, and the program itself).
    assert!(peak_kib < 256 * 1024, "peak resident set {peak_kib} KiB");
}
