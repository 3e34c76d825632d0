//! Hostile inputs to the conformance tools: cases whose few bytes ask the
//! runner for gigabytes of host memory (the `--case-memory` bound covers
//! every host allocation a case makes), and reports that are not a whole
//! run (`npu-ops report merge` refuses them, naming the file and the rule).

use npu_ops::Backend;
use npu_ops_cli::conformance::{self, parse_case, Options, Status};
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
    // A long window that runs as blocks (a broadcast of one element: one
    // copy) builds no index lists, so it is not charged for any: 1.5 M
    // output coordinates pass under 64 MiB.
    let n = 1_500_000usize;
    let blocks = format!(
        r#"{{"id":"blocks","op":"sampled_slice","input":{{"dtype":"int8","shape":[1],"data":[5]}},"params":{{"start":[0],"size":[{n}],"stride":[0],"mode":"wrap"}},"expect":{{"dtype":"int8","shape":[{n}],"data":[{}]}}}}"#,
        vec!["5"; n].join(",")
    );
    let mut lines: Vec<&str> = ok.to_vec();
    lines.push(&blocks);
    let r = conformance::run(&cases(&lines), &[], &sim(64 << 20), || {}).unwrap();
    for o in &r.outcomes {
        assert_eq!(o.status, Status::Passed, "{}: {}", o.id, o.reason);
    }
    assert_eq!(r.outcomes.len(), lines.len());
}

/// Runs `npu-ops` and returns (exit status, stdout, peak resident set in
/// KiB), the peak read from the child's own `rusage`.
#[cfg(target_os = "linux")]
// The child is reaped by `wait4` (which gives its rusage), not `wait`.
#[allow(clippy::zombie_processes)]
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

// ---- report merge refuses what is not a whole run ----

/// A suite of 12 cases, split in 2 shards.
fn twelve_cases() -> Vec<conformance::Case> {
    (0..12)
        .map(|i| {
            parse_case(
                &format!(
                    r#"{{"id": "slice/c{i}", "op": "slice", "soc": "Ascend910B3", "input": {{"dtype": "int32", "shape": [3], "data": [1, 2, {i}]}}, "params": {{"dim": 0, "start": 2, "end": 3, "step": 1}}, "expect": {{"dtype": "int32", "shape": [1], "data": [{i}]}}}}"#
                ),
                &format!("suite.jsonl:{}", i + 1),
            )
            .unwrap()
        })
        .collect()
}

/// The reports of shards 1/2 and 2/2 of the 12-case suite, as JSON.
fn shard_reports() -> (serde_json::Value, serde_json::Value) {
    let cases = twelve_cases();
    let run = |index| {
        let opts = Options {
            shard: Some(conformance::Shard { index, count: 2 }),
            ..sim(64 << 20)
        };
        let r = conformance::run(&cases, &[], &opts, || {}).unwrap();
        assert_eq!(r.failed(), 0, "{}", r.text(20));
        serde_json::from_str::<serde_json::Value>(&r.json()).unwrap()
    };
    let (a, b) = (run(1), run(2));
    let n = |v: &serde_json::Value| v["cases"].as_array().unwrap().len();
    // Both shards hold cases (the split is fixed: these are pinned).
    assert!(n(&a) > 0 && n(&b) > 0 && n(&a) + n(&b) == 12);
    (a, b)
}

/// Sets `total`, `passed`, `failed` and `skipped` from `cases`, as an
/// attacker who knows the format would.
fn consistent(mut v: serde_json::Value) -> String {
    let cases = v["cases"].as_array().unwrap().clone();
    let n = |s: &str| cases.iter().filter(|c| c["status"] == s).count();
    v["total"] = cases.len().into();
    v["passed"] = n("passed").into();
    v["failed"] = n("failed").into();
    v["skipped"] = n("skipped").into();
    v.to_string()
}

fn merge(files: &[&Path], extra: &[&str]) -> std::process::Output {
    Command::new(EXE)
        .args(["report", "merge"])
        .args(files)
        .args(extra)
        .output()
        .unwrap()
}

/// The merge exits 2, and stderr names `file` and holds `rule`.
#[track_caller]
fn refused(files: &[&Path], extra: &[&str], file: &Path, rule: &str) {
    let out = merge(files, extra);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "{rule}: {stdout}{stderr}");
    assert!(
        stderr.contains(&file.display().to_string()) && stderr.contains(rule),
        "want {} and {rule:?}: {stderr}",
        file.display()
    );
}

#[test]
#[serial]
fn honest_shards_merge_whole_and_record_what_they_hold() {
    let dir = tempfile::TempDir::new().unwrap();
    let (a, b) = shard_reports();
    let (na, nb) = (
        a["cases"].as_array().unwrap().len(),
        b["cases"].as_array().unwrap().len(),
    );
    assert_eq!(
        a["shards"],
        serde_json::json!({"count": 2, "indices": [1], "cases": [na], "selected": 12})
    );
    assert_eq!(a["suite"]["cases"], 12);
    let fa = write(dir.path(), "a.json", &a.to_string());
    let fb = write(dir.path(), "b.json", &b.to_string());
    let all = dir.path().join("all.json");
    let out = merge(&[&fb, &fa], &["--report", all.to_str().unwrap()]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&all).unwrap()).unwrap();
    assert_eq!(
        m["shards"],
        serde_json::json!({"count": 2, "indices": [1, 2], "cases": [na, nb], "selected": 12})
    );
    assert_eq!(m["total"], 12);
    // The merged report is a whole run on its own; a partial merge of one
    // shard is what --partial is for.
    assert_eq!(merge(&[&all], &[]).status.code(), Some(0));
    assert_eq!(merge(&[&fa], &["--partial"]).status.code(), Some(0));
    // A merge of 1 of 2 shards (--partial) merges again with the other.
    let part = dir.path().join("part.json");
    assert_eq!(
        merge(&[&fa], &["--partial", "--report", part.to_str().unwrap()])
            .status
            .code(),
        Some(0)
    );
    assert_eq!(merge(&[&part, &fb], &[]).status.code(), Some(0));
    // Reports written before the per-shard counts (older fields only)
    // still merge when whole.
    let old = |mut v: serde_json::Value, name| {
        v["shards"] =
            serde_json::json!({"count": v["shards"]["count"], "indices": v["shards"]["indices"]});
        write(dir.path(), name, &v.to_string())
    };
    let (oa, ob) = (old(a, "old-a.json"), old(b, "old-b.json"));
    assert_eq!(merge(&[&oa, &ob], &[]).status.code(), Some(0));
}

#[test]
#[serial]
fn one_report_claiming_two_shards_with_one_shards_cases_is_refused() {
    let dir = tempfile::TempDir::new().unwrap();
    let (a, _) = shard_reports();
    let na = a["cases"].as_array().unwrap().len();
    // The issue's report: shards [1, 2] claimed, shard 1's cases only, no
    // per-shard counts (the format before them).
    let mut v = a.clone();
    v["shards"] = serde_json::json!({"count": 2, "indices": [1, 2]});
    let f = write(dir.path(), "claims-both.json", &consistent(v));
    for extra in [&[][..], &["--partial"]] {
        refused(
            &[&f],
            extra,
            &f,
            "claims shards 1, 2 of 2 but records no case count per shard",
        );
    }
    // With counts that say shard 2 holds what it does not.
    let mut v = a.clone();
    v["shards"] =
        serde_json::json!({"count": 2, "indices": [1, 2], "cases": [na, 12 - na], "selected": 12});
    let f = write(dir.path(), "claims-counts.json", &consistent(v));
    refused(
        &[&f],
        &[],
        &f,
        &format!(
            "shard 2/2 holds 0 case(s), but the report says the run selected {} for it",
            12 - na
        ),
    );
    // With counts that agree with its cases: the sum is not the run's.
    let mut v = a.clone();
    v["shards"] =
        serde_json::json!({"count": 2, "indices": [1, 2], "cases": [na, 0], "selected": 12});
    let f = write(dir.path(), "claims-zero.json", &consistent(v));
    refused(
        &[&f],
        &[],
        &f,
        &format!("hold {na} outcome(s), and the run has 12"),
    );
    // The same, with the selection lowered to its cases: not the suite's.
    let mut v = a.clone();
    v["shards"] =
        serde_json::json!({"count": 2, "indices": [1, 2], "cases": [na, 0], "selected": na});
    let f = write(dir.path(), "claims-selected.json", &consistent(v));
    refused(
        &[&f],
        &[],
        &f,
        &format!("says the run selected {na} cases of a suite of 12 cases"),
    );
    // No counts, no selection, one shard of 1: 8 of 12 is not whole.
    let mut v = a.clone();
    let mut cases = v["cases"].as_array().unwrap().clone();
    cases.truncate(na.min(8));
    v["cases"] = cases.into();
    v["shards"] = serde_json::json!({"count": 1, "indices": [1]});
    let f = write(dir.path(), "unsharded-short.json", &consistent(v));
    refused(
        &[&f],
        &[],
        &f,
        "and the run has 12 (the suite's 12 cases and 0 unreadable lines): not a whole run",
    );
}

#[test]
#[serial]
fn cases_in_the_wrong_shard_or_missing_from_their_shard_are_refused() {
    let dir = tempfile::TempDir::new().unwrap();
    let (a, b) = shard_reports();
    let fb = write(dir.path(), "b.json", &b.to_string());
    // A case of shard 2 in shard 1's report (in place of one of its own).
    let mut v = a.clone();
    let stranger = b["cases"][0].clone();
    let id = stranger["id"].as_str().unwrap().to_string();
    v["cases"][0] = stranger;
    let f = write(dir.path(), "stranger.json", &consistent(v));
    refused(
        &[&f, &fb],
        &[],
        &f,
        &format!("case {id:?} belongs to shard 2/2"),
    );
    // A case dropped from shard 1 (counts fixed up): lower than the
    // selection the run itself recorded, even with --partial.
    let mut v = a.clone();
    v["cases"].as_array_mut().unwrap().pop();
    let na = a["cases"].as_array().unwrap().len();
    let f = write(dir.path(), "short.json", &consistent(v.clone()));
    for extra in [&[][..], &["--partial"]] {
        refused(
            &[&f, &fb],
            extra,
            &f,
            &format!(
                "shard 1/2 holds {} case(s), but the report says the run selected {na}",
                na - 1
            ),
        );
    }
    // And with its own count lowered to match: the merged total is not
    // the selection.
    v["shards"]["cases"] = serde_json::json!([na - 1]);
    let f = write(dir.path(), "short-counted.json", &consistent(v.clone()));
    refused(
        &[&f, &fb],
        &[],
        &f,
        "hold 11 outcome(s), and the run has 12 (the cases the run selected)",
    );
    // And in the older format (no counts at all): the suite's total.
    v["shards"] = serde_json::json!({"count": 2, "indices": [1]});
    let f = write(dir.path(), "short-old.json", &consistent(v));
    let ob = {
        let mut w = b.clone();
        w["shards"] = serde_json::json!({"count": 2, "indices": [2]});
        write(dir.path(), "b-old.json", &w.to_string())
    };
    refused(
        &[&f, &ob],
        &[],
        &f,
        "hold 11 outcome(s), and the run has 12 (the suite's 12 cases and 0 unreadable lines)",
    );
}

#[test]
#[serial]
fn shard_claims_across_reports_must_be_one_run() {
    let dir = tempfile::TempDir::new().unwrap();
    let (a, b) = shard_reports();
    let fa = write(dir.path(), "a.json", &a.to_string());
    let fb = write(dir.path(), "b.json", &b.to_string());
    // Two reports of the same shard.
    let fa2 = write(dir.path(), "a2.json", &a.to_string());
    refused(&[&fa, &fa2, &fb], &[], &fa2, "both cover shard 1/2");
    // Another N.
    let mut v = b.clone();
    v["shards"]["count"] = 3.into();
    let f3 = write(dir.path(), "n3.json", &v.to_string());
    refused(&[&fa, &f3], &[], &f3, "the shard count differs (2 vs 3)");
    // A missing shard.
    refused(&[&fa], &[], &fa, "shard 2 of 2 missing");
    // Another selection.
    let mut v = b.clone();
    v["shards"]["selected"] = 11.into();
    let f = write(dir.path(), "selected.json", &v.to_string());
    refused(
        &[&fa, &f],
        &[],
        &f,
        "the cases the run selected differs (12 vs 11)",
    );
    // Two outcomes at one place of the suite.
    let mut v = b.clone();
    v["cases"][0]["seq"] = a["cases"][0]["seq"].clone();
    let f = write(dir.path(), "place.json", &v.to_string());
    refused(&[&fa, &f], &[], &f, "both claim place");
    // A place past the suite.
    let mut v = b.clone();
    v["cases"][0]["seq"] = 12.into();
    let f = write(dir.path(), "past.json", &v.to_string());
    refused(&[&fa, &f], &[], &f, "is at place 12 of a suite of 12 cases");
    // A case that does not match the report's --filter (set on both).
    let (mut x, mut y) = (a.clone(), b.clone());
    x["filter"] = "c1".into();
    y["filter"] = "c1".into();
    x["shards"]["selected"] = serde_json::Value::Null;
    y["shards"]["selected"] = serde_json::Value::Null;
    let (fx, fy) = (
        write(dir.path(), "fx.json", &x.to_string()),
        write(dir.path(), "fy.json", &y.to_string()),
    );
    let out = merge(&[&fx, &fy], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("does not match the report's --filter \"c1\""),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A report that claims one shard of 4294967295 (a few hundred bytes):
/// the merge names the missing shards as ranges, without listing billions
/// of them (it took 16 GiB of memory and most of a minute).
#[cfg(target_os = "linux")]
#[test]
#[serial]
fn a_huge_shard_count_is_refused_without_listing_every_missing_shard() {
    let dir = tempfile::TempDir::new().unwrap();
    let (a, _) = shard_reports();
    let mut v = a.clone();
    v["cases"] = serde_json::json!([]);
    v["shards"] = serde_json::json!({"count": u32::MAX, "indices": [1], "cases": [0]});
    let f = write(dir.path(), "huge.json", &consistent(v));
    let out = merge(&[&f], &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("shards 2-4294967295 of 4294967295 missing from"),
        "{stderr}"
    );
    let (code, _, peak_kib) = run_measured(&["report".as_ref(), "merge".as_ref(), f.as_os_str()]);
    assert_eq!(code, 2);
    assert!(peak_kib < 256 << 10, "peak {peak_kib} KiB");
    // The ranges themselves.
    let c = |count, indices: &[u32]| conformance::Coverage {
        count,
        indices: indices.to_vec(),
        cases: None,
        selected: None,
    };
    assert_eq!(c(u32::MAX, &[1]).missing(), [(2, u32::MAX)]);
    assert_eq!(c(u32::MAX, &[u32::MAX]).missing(), [(1, u32::MAX - 1)]);
    assert_eq!(c(9, &[2, 3, 7]).missing(), [(1, 1), (4, 6), (8, 9)]);
    assert!(c(3, &[1, 2, 3]).missing().is_empty());
}

/// `--record` writes a case's output one element at a time: a 230-byte
/// line whose 8 MB output is within `--case-memory` does not make the
/// recording take hundreds of megabytes (a JSON value per element and the
/// whole line as text took 65 bytes per element: 3.9 GB for 60 MB).
#[cfg(target_os = "linux")]
#[test]
#[serial]
fn recording_a_large_output_stays_within_case_memory() {
    let dir = tempfile::TempDir::new().unwrap();
    let n = 8_000_000;
    let line = format!(
        r#"{{"id":"big","op":"slice","input":{{"dtype":"int8","shape":[1],"data":[7],"view":{{"shape":[{n}],"strides":[0],"offset":0}}}},"params":{{"dim":0,"start":0,"end":{n},"step":1}},"expect":{{"error":"invalid_argument"}}}}"#
    );
    let file = write(dir.path(), "big.jsonl", &line);
    let rec = dir.path().join("rec");
    let (code, out, peak_kib) = run_measured(&[
        "conformance".as_ref(),
        "--backend".as_ref(),
        "sim".as_ref(),
        "--case-memory".as_ref(),
        "64M".as_ref(),
        file.as_os_str(),
        "--record".as_ref(),
        rec.as_os_str(),
    ]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("recorded 1 cases in 1 file(s)"), "{out}");
    let text = std::fs::read(rec.join("big.jsonl")).unwrap();
    let body = text.split(|&b| b == b'\n').nth(1).unwrap();
    assert!(body.starts_with(br#"{"expect":{"data":[7,7,7,"#));
    assert!(body.ends_with(
        format!(r#"7],"dtype":"int8","shape":[{n}]}},"id":"big","input":{{"data":[7],"dtype":"int8","shape":[1],"view":{{"offset":0,"shape":[{n}],"strides":[0]}}}},"op":"slice","params":{{"dim":0,"end":{n},"start":0,"step":1}},"recorded":{{"backend":"sim","device":0,"matched_expect":false}},"soc":"Ascend910B3"}}"#).as_bytes()
    ), "{}", String::from_utf8_lossy(&body[body.len() - 300..]));
    assert!(peak_kib < 160 << 10, "peak {peak_kib} KiB");
}
