//! The conformance runner at fleet scale: cases spread across devices
//! (`--devices`, with `NPU_SIM_DEVICES`), shards that merge into the
//! unsharded totals (`--shard`, `npu-ops report merge`), recordings that
//! replay with no difference (`--record`), two backends compared
//! (`--compare`), per-case time limits (`--timeout`, with a held stream),
//! device faults as their own outcome, the suite built into the binary,
//! and the bad options and inputs of each.
//!
//! Runs that need several simulated devices run the binary as a child
//! process (the simulator reads `NPU_SIM_DEVICES` once, when it starts).

use npu_ops::{Backend, Runtime, Stream};
use npu_ops_cli::conformance::{self, parse_case, Case, Options, Report, Shard, Status};
use serde_json::Value;
use serial_test::serial;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const EXE: &str = env!("CARGO_BIN_EXE_npu-ops");

const GOOD: &str = r#"{"id": "ok", "op": "slice", "input": {"dtype": "float32", "shape": [3], "data": [1, 2, 3]}, "params": {"dim": 0, "start": 1, "end": 3, "step": 1}, "expect": {"dtype": "float32", "shape": [2], "data": [2, 3]}}"#;

/// `GOOD` under another id.
fn good(id: &str) -> String {
    GOOD.replace("\"ok\"", &format!("{id:?}"))
}

/// Runs `npu-ops ARGS` with `envs` set (and the backend and device
/// variables of the test's own environment removed).
fn npu_ops(args: &[&str], envs: &[(&str, &str)]) -> Output {
    let mut c = Command::new(EXE);
    c.args(args)
        .env_remove("NPU_SIM_DEVICES")
        .env_remove("NPU_SIM_SOC")
        .env_remove("NPU_OPS_BACKEND");
    for (k, v) in envs {
        c.env(k, v);
    }
    c.output().expect("npu-ops runs")
}

fn text(o: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// (id, status, observed) of every case of a JSON report, in its order.
fn verdicts(report: &Value) -> Vec<(String, String, String)> {
    report["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["id"].as_str().unwrap().to_string(),
                c["status"].as_str().unwrap().to_string(),
                c["observed"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn cases_spread_across_devices_with_the_same_verdicts() {
    let dir = tempfile::tempdir().unwrap();
    let one = dir.path().join("one.json");
    let out = npu_ops(
        &["conformance", "--backend", "sim", "--report", s(&one)],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let four = dir.path().join("four.json");
    let junit = dir.path().join("four.xml");
    let out = npu_ops(
        &[
            "conformance",
            "--backend",
            "sim",
            "--devices",
            "all",
            "--report",
            s(&four),
            "--junit",
            s(&junit),
        ],
        &[("NPU_SIM_DEVICES", "4")],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("devices 0, 1, 2, 3"), "{stdout}");
    assert!(stdout.contains("conformance: 10469 passed, 0 failed, 0 skipped"));
    let (one, four) = (json(&one), json(&four));
    assert_eq!(
        verdicts(&one),
        verdicts(&four),
        "the same verdicts, in the same order"
    );
    assert_eq!(one["devices"], serde_json::json!([0]));
    assert_eq!(four["devices"], serde_json::json!([0, 1, 2, 3]));
    let mut per_device = [0usize; 4];
    for c in four["cases"].as_array().unwrap() {
        let d = c["device"].as_u64().expect("every case names its device") as usize;
        per_device[d] += 1;
    }
    assert!(
        per_device.iter().filter(|&&n| n > 0).count() >= 2,
        "cases spread: {per_device:?}"
    );
    for c in one["cases"].as_array().unwrap() {
        assert_eq!(c["device"], 0);
    }
    // The table per device and the JUnit properties say which ran what.
    for (d, n) in per_device.iter().enumerate() {
        if *n > 0 {
            assert!(
                stdout.contains(&format!("\n{d:<16} {n:>7} {n:>7}")),
                "device {d}: {stdout}"
            );
            assert!(std::fs::read_to_string(&junit)
                .unwrap()
                .contains(&format!("<property name=\"device\" value=\"{d}\"/>")));
        }
    }
    // A list: only those devices run cases.
    let some = dir.path().join("some.json");
    let out = npu_ops(
        &[
            "conformance",
            "--backend",
            "sim",
            "--devices",
            "2,0",
            "--filter",
            "slice/",
            "--report",
            s(&some),
        ],
        &[("NPU_SIM_DEVICES", "4")],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let some = json(&some);
    assert_eq!(some["devices"], serde_json::json!([2, 0]));
    for c in some["cases"].as_array().unwrap() {
        assert!(c["device"] == 0 || c["device"] == 2, "{c}");
    }
}

#[test]
fn bad_device_lists_exit_with_status_2() {
    for (devices, sim_devices, want) in [
        ("9", "8", "device 9 does not exist"),
        ("0,8", "8", "device 8 does not exist"),
        ("1", "1", "device 1 does not exist"),
        ("1,1", "8", "listed twice"),
        ("x", "8", "not a device number"),
        ("0,,1", "8", "not a device number"),
        ("-1", "8", "not a device number"),
        ("", "8", "no device given"),
        ("ALL", "8", "not a device number"),
    ] {
        let arg = format!("--devices={devices}");
        let out = npu_ops(
            &["conformance", "--backend", "sim", &arg],
            &[("NPU_SIM_DEVICES", sim_devices)],
        );
        assert_eq!(out.status.code(), Some(2), "{devices:?}: {}", text(&out));
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(want),
            "{devices:?}: {}",
            text(&out)
        );
        assert!(out.stdout.is_empty(), "no case ran: {}", text(&out));
    }
    // A simulator that cannot start (a bad NPU_SIM_DEVICES) is no backend.
    let out = npu_ops(
        &["conformance", "--backend", "sim"],
        &[("NPU_SIM_DEVICES", "lots")],
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
}

#[test]
fn shards_split_the_suite_the_same_way_every_time() {
    let (cases, malformed) = conformance::load_embedded();
    assert!(malformed.is_empty());
    for n in [1u32, 2, 3, 8] {
        let mut seen = vec![0usize; n as usize];
        for c in &cases {
            let holders: Vec<u32> = (1..=n)
                .filter(|&i| Shard { index: i, count: n }.holds(&c.id))
                .collect();
            assert_eq!(holders.len(), 1, "{} is in exactly one of {n}", c.id);
            assert_eq!(holders[0], conformance::shard::shard_of(&c.id, n));
            seen[holders[0] as usize - 1] += 1;
        }
        let even = cases.len() / n as usize;
        for k in seen {
            assert!(
                k.abs_diff(even) <= even / 4 + 10,
                "{n} shards: {k} vs {even}"
            );
        }
    }
    // Adding a case moves no other.
    let before: Vec<u32> = cases
        .iter()
        .map(|c| conformance::shard::shard_of(&c.id, 4))
        .collect();
    let mut more: Vec<String> = cases.iter().map(|c| c.id.clone()).collect();
    more.insert(7, "a/new-case".into());
    let after: Vec<u32> = more
        .iter()
        .filter(|id| *id != "a/new-case")
        .map(|id| conformance::shard::shard_of(id, 4))
        .collect();
    assert_eq!(before, after);
}

#[test]
fn shards_merge_into_the_unsharded_run() {
    let dir = tempfile::tempdir().unwrap();
    let whole = dir.path().join("whole.json");
    let out = npu_ops(
        &["conformance", "--backend", "sim", "--report", s(&whole)],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let whole_stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let shard = |i: u32, extra: &[&str]| {
        let p = dir.path().join(format!("shard{i}.json"));
        let spec = format!("{i}/3");
        let mut args = vec![
            "conformance",
            "--backend",
            "sim",
            "--shard",
            &spec,
            "--report",
            s(&p),
        ];
        args.extend(extra);
        let out = npu_ops(&args, &[]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        assert!(
            String::from_utf8_lossy(&out.stdout).contains(&format!("shard {i} of 3")),
            "{}",
            text(&out)
        );
        p
    };
    let shards: Vec<PathBuf> = (1..=3).map(|i| shard(i, &[])).collect();
    let totals: u64 = shards
        .iter()
        .map(|p| json(p)["total"].as_u64().unwrap())
        .sum();
    assert_eq!(totals, 10469);
    // Merged in any order: the same report as the unsharded run.
    let merged = dir.path().join("merged.json");
    let merged_xml = dir.path().join("merged.xml");
    let out = npu_ops(
        &[
            "report",
            "merge",
            s(&shards[2]),
            s(&shards[0]),
            s(&shards[1]),
            "--report",
            s(&merged),
            "--junit",
            s(&merged_xml),
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    // The same table (the merge also names the shards it holds).
    let table = |t: &str| {
        t.lines()
            .skip(1)
            .filter(|l| !l.starts_with("shards 1-3 of 3"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(table(&stdout), table(&whole_stdout), "the same table");
    let (w, m) = (json(&whole), json(&merged));
    for k in [
        "total", "passed", "failed", "skipped", "suite", "backend", "soc",
    ] {
        assert_eq!(w[k], m[k], "{k}");
    }
    assert_eq!(verdicts(&w), verdicts(&m));
    let per_shard: Vec<serde_json::Value> = shards
        .iter()
        .map(|f| json(f)["shards"]["cases"][0].clone())
        .collect();
    assert_eq!(
        m["shards"],
        serde_json::json!({"count": 3, "indices": [1, 2, 3], "cases": per_shard, "selected": 10469})
    );
    let x = std::fs::read_to_string(&merged_xml).unwrap();
    assert!(x.contains(r#"tests="10469" failures="0""#), "{x}");
    // The merged report reads back (and merges alone) as a complete run.
    let again = Report::from_json(&std::fs::read_to_string(&merged).unwrap()).unwrap();
    assert_eq!(again.outcomes.len(), 10469);

    let merge = |files: &[&Path], extra: &[&str]| {
        let mut args = vec!["report", "merge"];
        args.extend(files.iter().map(|p| s(p)));
        args.extend(extra);
        npu_ops(&args, &[])
    };
    let refused = |files: &[&Path], want: &str| {
        let out = merge(files, &[]);
        assert_eq!(out.status.code(), Some(2), "{want}: {}", text(&out));
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(want),
            "{want}: {}",
            text(&out)
        );
    };
    let (a, b, c) = (&shards[0], &shards[1], &shards[2]);
    // A shard twice, a shard missing.
    refused(&[a, b, c, a], "both cover shard 1/3");
    refused(&[a, c], "shard 2 of 3 missing");
    let out = merge(&[a, c], &["--partial"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("shards 1, 3 of 3"));
    let out = merge(&[b], &["--partial"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("shard 2 of 3"));
    // Another split, other options, another suite.
    refused(&[a, b, c, &whole], "the shard count differs");
    let filtered = dir.path().join("filtered.json");
    let out = npu_ops(
        &[
            "conformance",
            "--backend",
            "sim",
            "--shard",
            "2/3",
            "--filter",
            "slice",
            "--report",
            s(&filtered),
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    refused(&[a, &filtered, c], "--filter differs");
    let other_suite = dir.path().join("other.json");
    let seeds = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/cases/seeds.jsonl");
    let out = npu_ops(
        &[
            "conformance",
            "--backend",
            "sim",
            "--shard",
            "2/3",
            s(&seeds),
            "--report",
            s(&other_suite),
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    refused(&[a, &other_suite, c], "suite differs");
    let soc = dir.path().join("soc.json");
    let out = npu_ops(
        &[
            "conformance",
            "--backend",
            "sim",
            "--shard",
            "2/3",
            "--soc",
            "Ascend910A",
            "--report",
            s(&soc),
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    refused(&[a, &soc, c], "--soc differs");
    // The same cases under two shard numbers.
    let mut v = json(a);
    v["shards"]["indices"] = serde_json::json!([2]);
    let relabelled = write(dir.path(), "relabelled.json", &v.to_string());
    refused(&[a, &relabelled, c], "belongs to shard 1/3");
    // Files that are not reports.
    refused(&[&dir.path().join("missing.json")], "cannot read");
    refused(&[dir.path()], "cannot read");
    refused(
        &[&write(dir.path(), "garbage.json", "{not json")],
        "not JSON",
    );
    refused(
        &[&write(dir.path(), "bytes.json", "\u{0}\u{1}")],
        "not JSON",
    );
    let old = write(
        dir.path(),
        "old.json",
        r#"{"backend": "sim", "soc": "Ascend910B3", "total": 1, "passed": 1, "failed": 0, "skipped": 0, "failures": []}"#,
    );
    refused(&[&old], "not a report of `npu-ops conformance --report`");
    let mut v = json(a);
    v["passed"] = serde_json::json!(v["passed"].as_u64().unwrap() + 1);
    refused(
        &[&write(dir.path(), "counts.json", &v.to_string())],
        "cut short",
    );
    let mut v = json(a);
    v["cases"][0]["status"] = serde_json::json!("won");
    refused(
        &[&write(dir.path(), "status.json", &v.to_string())],
        "cases[0].status",
    );
    let mut v = json(a);
    v["shards"]["indices"] = serde_json::json!([4]);
    refused(
        &[&write(dir.path(), "index.json", &v.to_string())],
        "shards.indices",
    );
    let out = npu_ops(&["report", "merge"], &[]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    // The merged output cannot be written.
    let out = merge(
        &[a, b, c],
        &["--report", s(&dir.path().join("no/such/dir/r.json"))],
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
}

#[test]
fn bad_shards_and_timeouts_exit_with_status_2() {
    for bad in ["5/4", "0/4", "1/0", "4", "x/4", "1/4/1", "-1/4", ""] {
        let arg = format!("--shard={bad}");
        let out = npu_ops(&["conformance", "--backend", "sim", &arg], &[]);
        assert_eq!(
            out.status.code(),
            Some(2),
            "--shard {bad:?}: {}",
            text(&out)
        );
        assert!(out.stdout.is_empty());
    }
    let out = npu_ops(&["conformance", "--backend", "sim", "--shard", "5/4"], &[]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("shard 5 does not exist"));
    for bad in ["0", "-1", "abc", "nan", "inf", "1e9", ""] {
        let arg = format!("--timeout={bad}");
        let out = npu_ops(&["conformance", "--backend", "sim", &arg], &[]);
        assert_eq!(
            out.status.code(),
            Some(2),
            "--timeout {bad:?}: {}",
            text(&out)
        );
    }
    let out = npu_ops(
        &[
            "conformance",
            "--backend",
            "sim",
            "--timeout",
            "0.5",
            "--filter",
            "seed-",
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    // The exit statuses are in --help.
    for args in [
        &["conformance", "--help"][..],
        &["report", "merge", "--help"],
    ] {
        let out = npu_ops(args, &[]);
        let help = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0));
        assert!(
            help.contains("Exit status:")
                && help.contains("  0  ")
                && help.contains("  1  ")
                && help.contains("  2  "),
            "{help}"
        );
    }
}

#[test]
fn a_recorded_suite_replays_with_no_difference() {
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("golden");
    let out = npu_ops(
        &["conformance", "--backend", "sim", "--record", s(&rec)],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("recorded 10469 cases in 2 file(s)"),
        "{}",
        text(&out)
    );
    // Ids, inputs and params kept; every case names its SoC.
    let (orig, _) = conformance::load_embedded();
    let (back, bad) = conformance::load(std::slice::from_ref(&rec));
    assert!(bad.is_empty(), "{bad:?}");
    assert_eq!(back.len(), orig.len());
    for (o, b) in orig.iter().zip(&back) {
        assert_eq!(
            (&o.id, &o.op, &o.soc, &o.input, &o.params),
            (&b.id, &b.op, &b.soc, &b.input, &b.params)
        );
        // What was observed is what was expected: the suite passes.
        assert_eq!(o.expect, b.expect, "{}", o.id);
    }
    assert!(rec.join("generated.jsonl").is_file() && rec.join("seeds.jsonl").is_file());
    let out = npu_ops(&["conformance", "--backend", "sim", s(&rec)], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(String::from_utf8_lossy(&out.stdout)
        .contains("conformance: 10469 passed, 0 failed, 0 skipped"));

    // A wrong expectation is recorded as observed; what a case cannot
    // expect is a comment; the recording replays clean.
    let src = dir.path().join("src");
    let wrong = GOOD
        .replace("[2, 3]}}", "[2, 4]}}")
        .replace("\"ok\"", "\"wrong\"");
    write(
        &src,
        "a.jsonl",
        &format!(
            "{GOOD}\n{wrong}\n{{not json\n{}\n{}\n",
            good("ok"),
            good("unknown-soc").replacen(
                r#""op": "slice","#,
                r#""op": "slice", "soc": "Ascend999","#,
                1
            )
        ),
    );
    write(&src, "sub/a.jsonl", &format!("{}\n", good("other-file")));
    let rec2 = dir.path().join("golden2");
    let out = npu_ops(
        &[
            "conformance",
            "--backend",
            "sim",
            "--soc",
            "Ascend910_9391",
            s(&src),
            "--record",
            s(&rec2),
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("recorded 3 cases in 2 file(s)"),
        "{}",
        text(&out)
    );
    let a = std::fs::read_to_string(rec2.join("a.jsonl")).unwrap();
    assert!(
        rec2.join("a-2.jsonl").is_file(),
        "two sources named a.jsonl"
    );
    assert!(
        a.contains("// not recorded:") && a.contains("malformed line"),
        "{a}"
    );
    assert!(a.contains("unknown SoC"), "{a}");
    assert!(a.contains("duplicate id"), "{a}");
    let (back, bad) = conformance::load(std::slice::from_ref(&rec2));
    assert!(bad.is_empty(), "{bad:?}");
    let wrong_back = back.iter().find(|c| c.id == "wrong").unwrap();
    assert_eq!(
        wrong_back.soc.as_deref(),
        Some("Ascend910_9391"),
        "the SoC it ran as"
    );
    let out = npu_ops(&["conformance", "--backend", "sim", s(&rec2)], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("conformance: 3 passed, 0 failed"));

    // Never over the cases being read; an unusable folder stops the run.
    let out = npu_ops(
        &[
            "conformance",
            "--backend",
            "sim",
            s(&src),
            "--record",
            s(&src),
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("would replace"),
        "{}",
        text(&out)
    );
    assert_eq!(
        std::fs::read_to_string(src.join("a.jsonl"))
            .unwrap()
            .lines()
            .count(),
        5
    );
    let file = write(dir.path(), "plain-file", "x");
    let out = npu_ops(
        &[
            "conformance",
            "--backend",
            "sim",
            "--record",
            s(&file.join("sub")),
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(out.stdout.is_empty(), "no case ran");
}

#[test]
fn compare_sim_with_sim_finds_no_difference() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path().join("r.json");
    let out = npu_ops(
        &[
            "conformance",
            "--backend",
            "sim",
            "--compare",
            "sim",
            "--report",
            s(&r),
        ],
        &[("NPU_SIM_DEVICES", "2")],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("compared with sim"), "{stdout}");
    assert!(
        stdout.contains("sim against sim: 0 of 10469 cases run differ"),
        "{stdout}"
    );
    let r = json(&r);
    assert_eq!(
        (r["compare"].as_str(), r["differences"].as_u64()),
        (Some("sim"), Some(0))
    );
}

fn sim(cases: &[&str]) -> Vec<Case> {
    cases
        .iter()
        .enumerate()
        .map(|(i, l)| parse_case(l, &format!("t:{}", i + 1)).unwrap())
        .collect()
}

fn options() -> Options {
    Options {
        backend: Backend::Simulator,
        ..Options::default()
    }
}

/// Waits until no runtime over the simulator is left (an abandoned case's
/// thread lets its runtime go once its held stream is released).
fn wait_until_the_simulator_is_free() {
    let t0 = Instant::now();
    loop {
        std::env::set_var("NPU_SIM_SOC", "Ascend310P3");
        let soc = Runtime::new(Backend::Simulator).map(|r| r.soc().to_string());
        std::env::remove_var("NPU_SIM_SOC");
        if soc.is_ok_and(|s| s == "Ascend310P3") {
            return;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(30),
            "the simulator stays held"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A hook holding the stream of every case whose id starts with "hang",
/// and sleeping in every case whose id starts with "stuck".
fn holding_hook() -> (conformance::CaseHook, Arc<Mutex<Vec<npu_sim::Hold>>>) {
    let holds: Arc<Mutex<Vec<npu_sim::Hold>>> = Arc::default();
    let h = holds.clone();
    let hook: conformance::CaseHook = Arc::new(move |s: &Stream, c: &Case| {
        if c.id.starts_with("hang") {
            h.lock()
                .unwrap()
                .push(npu_sim::hold_stream(s.as_raw()).unwrap());
        }
        if c.id.starts_with("stuck") {
            // Stuck outside the stream, where no synchronisation can time
            // out: only the watchdog sees it.
            std::thread::sleep(Duration::from_millis(1500));
        }
    });
    (hook, holds)
}

#[test]
#[serial]
fn a_hung_case_times_out_and_the_run_goes_on() {
    let cases = sim(&[
        &good("a"),
        &good("hang-at-synchronize"),
        &good("b"),
        &good("stuck-before-it-runs"),
        &good("c"),
    ]);
    let (hook, holds) = holding_hook();
    let opts = Options {
        timeout: Some(Duration::from_millis(500)),
        hook: Some(hook),
        ..options()
    };
    let t0 = Instant::now();
    let r = conformance::run(&cases, &[], &opts, || {}).unwrap();
    let took = t0.elapsed();
    let got: Vec<(&str, Status, &str)> = r
        .outcomes
        .iter()
        .map(|o| (o.id.as_str(), o.status, o.observed.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            ("a", Status::Passed, "output"),
            ("hang-at-synchronize", Status::Failed, "timeout"),
            ("b", Status::Passed, "output"),
            ("stuck-before-it-runs", Status::Failed, "timeout"),
            ("c", Status::Passed, "output"),
        ],
        "{}",
        r.text(10)
    );
    // The stream's own time limit (aclrtSynchronizeStreamWithTimeout) ...
    assert!(
        r.outcomes[1]
            .reason
            .contains("aclrtSynchronizeStreamWithTimeout"),
        "{}",
        r.outcomes[1].reason
    );
    // ... and the watchdog, for a case stuck elsewhere.
    assert!(
        r.outcomes[3].reason.contains("abandoned on its thread"),
        "{}",
        r.outcomes[3].reason
    );
    assert!(took < Duration::from_secs(10), "{took:?}");
    assert!(r.text(10).contains("timed out"));
    drop(holds.lock().unwrap().drain(..));
    wait_until_the_simulator_is_free();

    // A device whose cases keep timing out is retired; with none left, the
    // cases not run fail, saying why.
    let cases = sim(&[
        &good("hang1"),
        &good("hang2"),
        &good("hang3"),
        &good("never"),
    ]);
    let (hook, holds) = holding_hook();
    let opts = Options {
        timeout: Some(Duration::from_millis(300)),
        hook: Some(hook),
        ..options()
    };
    let r = conformance::run(&cases, &[], &opts, || {}).unwrap();
    assert_eq!(r.failed(), 4, "{}", r.text(10));
    let last = &r.outcomes[3];
    assert_eq!(last.observed, "not_run");
    assert!(
        last.reason.contains("no device left")
            && last
                .reason
                .contains("device 0: retired after 3 cases timed out"),
        "{}",
        last.reason
    );
    drop(holds.lock().unwrap().drain(..));
    wait_until_the_simulator_is_free();
}

/// Leaves a device memory fault on the stream: a copy between buffers
/// freed while the copy is queued (the simulator's memory checker faults
/// it with ACL_ERROR_RT_DEVICE_MEM_ERROR when it runs).
fn leave_a_device_fault(s: &Stream) {
    use npu_ops::cann_sys::{aclrtMemMallocPolicy, aclrtMemcpyKind};
    let api = npu_sim::api();
    let raw = s.as_raw();
    let hold = npu_sim::hold_stream(raw).unwrap();
    let (mut src, mut dst) = (std::ptr::null_mut(), std::ptr::null_mut());
    let policy = aclrtMemMallocPolicy::ACL_MEM_MALLOC_HUGE_FIRST;
    // SAFETY: out-pointers; two device buffers of 64 bytes, used as such.
    unsafe {
        assert_eq!((api.aclrtMalloc)(&mut src, 64, policy), 0);
        assert_eq!((api.aclrtMalloc)(&mut dst, 64, policy), 0);
        let d2d = aclrtMemcpyKind::ACL_MEMCPY_DEVICE_TO_DEVICE;
        assert_eq!((api.aclrtMemcpyAsync)(dst, 64, src, 64, d2d, raw), 0);
        assert_eq!((api.aclrtFree)(src), 0);
        assert_eq!((api.aclrtFree)(dst), 0);
    }
    drop(hold);
}

#[test]
#[serial]
fn device_faults_are_their_own_outcome() {
    let index_oor = r#"{"id": "fault-expecting-an-index-error", "op": "slice", "input": {"dtype": "int8", "shape": [2], "data": [1, 2]}, "params": {"dim": 0, "start": 0, "end": 1, "step": 1}, "expect": {"error": "index_out_of_range"}}"#;
    let cases = sim(&[&good("before"), &good("fault"), index_oor, &good("after")]);
    let hook: conformance::CaseHook = Arc::new(|s: &Stream, c: &Case| {
        if c.id.starts_with("fault") {
            leave_a_device_fault(s);
        }
    });
    let opts = Options {
        hook: Some(hook),
        ..options()
    };
    let r = conformance::run(&cases, &[], &opts, || {}).unwrap();
    let statuses: Vec<Status> = r.outcomes.iter().map(|o| o.status).collect();
    assert_eq!(
        statuses,
        [
            Status::Passed,
            Status::Failed,
            Status::Failed,
            Status::Passed
        ],
        "{}",
        r.text(10)
    );
    for o in &r.outcomes[1..3] {
        assert_eq!(o.observed, "device_fault", "{}: never a pass", o.id);
        let f = o.fault.as_ref().expect("the runtime's report");
        assert_eq!(f.code, npu_ops::cann_sys::ACL_ERROR_RT_DEVICE_MEM_ERROR);
        assert!(f.message.contains("use after free"), "{}", f.message);
        assert!(
            o.reason.contains("device fault")
                && o.reason.contains("507053")
                && o.reason.contains("ACL_ERROR_RT_DEVICE_MEM_ERROR"),
            "{}",
            o.reason
        );
    }
    // The JSON report carries the fault.
    let j: Value = serde_json::from_str(&r.json()).unwrap();
    assert_eq!(j["cases"][1]["observed"], "device_fault");
    assert_eq!(j["cases"][1]["fault"]["code"], 507053);

    // With --compare, the backends now disagree on the faulted case.
    let cases = sim(&[&good("same"), &good("fault")]);
    let hook: conformance::CaseHook = Arc::new(|s: &Stream, c: &Case| {
        if c.id == "fault" {
            leave_a_device_fault(s);
        }
    });
    let opts = Options {
        hook: Some(hook),
        compare: Some(Backend::Simulator),
        ..options()
    };
    let r = conformance::run(&cases, &[], &opts, || {}).unwrap();
    assert_eq!(r.differences(), 1, "{}", r.text(10));
    let d = r.outcomes[1].difference.as_deref().unwrap();
    assert!(
        d.contains("device_fault") && d.contains("output float32 [2]"),
        "{d}"
    );
    assert!(
        r.outcomes[1].reason.contains("sim and sim differ"),
        "{}",
        r.outcomes[1].reason
    );
    assert!(r
        .text(10)
        .contains("sim against sim: 1 of 2 cases run differ"));
}

#[test]
fn the_suite_is_built_in_and_every_case_names_its_soc() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    let mut files: Vec<String> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".jsonl"))
        .map(|n| format!("tests/cases/{n}"))
        .collect();
    files.sort();
    let mut embedded: Vec<String> = conformance::EMBEDDED
        .iter()
        .map(|(n, _)| n.to_string())
        .collect();
    embedded.sort();
    assert_eq!(
        files, embedded,
        "every case file is built in (list it in case.rs)"
    );
    for (name, text) in conformance::EMBEDDED {
        let on_disk =
            std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(name)).unwrap();
        assert_eq!(text, on_disk, "{name} as built in");
    }
    let (cases, malformed) = conformance::load(&[root]);
    assert!(malformed.is_empty());
    for c in &cases {
        assert!(c.soc.is_some(), "{} ({}) names no soc", c.id, c.origin);
    }
    // Run from a folder without the source tree, with --soc of another
    // family: the whole suite, unchanged.
    let elsewhere = tempfile::tempdir().unwrap();
    let out = Command::new(EXE)
        .args(["conformance", "--backend", "sim", "--soc", "Ascend310P3"])
        .current_dir(elsewhere.path())
        .env_remove("NPU_SIM_DEVICES")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(String::from_utf8_lossy(&out.stdout)
        .contains("conformance: 10469 passed, 0 failed, 0 skipped"));
}
