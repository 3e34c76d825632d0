//! The conformance runner itself: parsing every field, each malformed
//! input, outcomes, report formats and exit codes.

use npu_ops::{Backend, DType};
use npu_ops_cli::conformance::{self, parse_case, Expect, Options, Status};
use serial_test::serial;
use std::path::PathBuf;
use std::process::Command;

fn sim() -> Options {
    Options {
        backend: Backend::Simulator,
        ..Options::default()
    }
}

fn write(dir: &std::path::Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, text).unwrap();
    p
}

const GOOD: &str = r#"{"id": "ok", "op": "slice", "input": {"dtype": "float32", "shape": [3], "data": [1, 2, 3]}, "params": {"dim": 0, "start": 1, "end": 3, "step": 1}, "expect": {"dtype": "float32", "shape": [2], "data": [2, 3]}}"#;

#[test]
#[serial]
fn every_field_is_read() {
    let c = parse_case(
        r#"{"id": "x", "op": "sampled_slice", "soc": "Ascend910_9391",
            "input": {"dtype": "complex64", "shape": [2, 2], "data": [[1, -2], [0.5, "nan"], ["inf", "-inf"], [0, -0.0]],
                      "view": {"shape": [2, 2], "strides": [1, 2], "offset": 0}},
            "params": {"start": [0], "size": [2], "stride": [1], "mode": "fill", "fill": 0, "axes": [-1], "dynamic": true},
            "expect": {"error": "unsupported_dtype"}}"#,
        "f:1",
    )
    .unwrap();
    assert_eq!(
        (c.id.as_str(), c.op.as_str(), c.soc.as_deref()),
        ("x", "sampled_slice", Some("Ascend910_9391"))
    );
    assert_eq!(c.input.dtype, DType::C64);
    assert_eq!(c.input.view, Some((vec![2, 2], vec![1, 2], 0)));
    let f = |i: usize| f32::from_le_bytes(c.input.bytes[i * 4..i * 4 + 4].try_into().unwrap());
    assert_eq!((f(0), f(1), f(2)), (1.0, -2.0, 0.5));
    assert!(f(3).is_nan());
    assert_eq!((f(4), f(5)), (f32::INFINITY, f32::NEG_INFINITY));
    assert!(
        f(7) == 0.0 && f(7).is_sign_negative(),
        "-0.0 keeps its sign"
    );
    assert_eq!(c.params["dynamic"], true);
    assert_eq!(c.expect, Expect::Error("unsupported_dtype".into()));
    // Bools as true/false or 0/1; integers at the edges of their type.
    let c = parse_case(
        r#"{"id": "b", "op": "slice", "input": {"dtype": "bool", "shape": [3], "data": [true, 0, 1]}, "params": {}, "expect": {"dtype": "int64", "shape": [2], "data": [-9223372036854775808, 9223372036854775807]}}"#,
        "f:2",
    )
    .unwrap();
    assert_eq!(c.input.bytes, [1, 0, 1]);
    let Expect::Output(t) = c.expect else {
        panic!()
    };
    assert_eq!(&t.bytes[..8], &i64::MIN.to_le_bytes());
    let c = parse_case(r#"{"id": "u", "op": "slice", "input": {"dtype": "uint64", "shape": [1], "data": [18446744073709551615]}, "params": {}, "expect": {"error": "invalid_argument"}}"#, "f:3").unwrap();
    assert_eq!(c.input.bytes, u64::MAX.to_le_bytes());
}

#[test]
#[serial]
fn each_malformed_line_is_named_with_its_file_and_line() {
    let bad = [
        ("{not json", "not JSON"),
        (r#"{"op": "slice"}"#, "missing field `id`"),
        (
            r#"{"id": "a", "op": "no_such_op", "input": {}, "params": {}, "expect": {}}"#,
            "unknown operator",
        ),
        (
            r#"{"id": "a", "op": "slice", "input": {"dtype": "float8", "shape": [1], "data": [1]}, "params": {}, "expect": {"error": "invalid_argument"}}"#,
            "unknown dtype",
        ),
        (
            r#"{"id": "a", "op": "slice", "input": {"dtype": "int8", "shape": [2], "data": [1]}, "params": {}, "expect": {"error": "invalid_argument"}}"#,
            "1 values for shape [2]",
        ),
        (
            r#"{"id": "a", "op": "slice", "input": {"dtype": "float32", "shape": [1], "data": [0.1]}, "params": {}, "expect": {"error": "invalid_argument"}}"#,
            "not exactly representable",
        ),
        (
            r#"{"id": "a", "op": "slice", "input": {"dtype": "int8", "shape": [1], "data": [300]}, "params": {}, "expect": {"error": "invalid_argument"}}"#,
            "not a int8 value",
        ),
        (
            r#"{"id": "a", "op": "slice", "input": {"dtype": "bool", "shape": [1], "data": [2]}, "params": {}, "expect": {"error": "invalid_argument"}}"#,
            "not a bool",
        ),
        (
            r#"{"id": "a", "op": "slice", "input": {"dtype": "complex64", "shape": [1], "data": [1]}, "params": {}, "expect": {"error": "invalid_argument"}}"#,
            "[re, im] pair",
        ),
        (
            r#"{"id": "a", "op": "slice", "input": {"dtype": "int8", "shape": [1], "data": [1]}, "params": {}, "expect": {"error": "wrong_answer"}}"#,
            "unknown kind",
        ),
        (
            r#"{"id": "a", "op": "slice", "input": {"dtype": "int8", "shape": [1], "data": [1]}, "expect": {"error": "invalid_argument"}}"#,
            "missing field `params`",
        ),
        (
            r#"{"id": "a", "op": "slice", "input": {"dtype": "int8", "shape": [-1], "data": []}, "params": {}, "expect": {"error": "invalid_argument"}}"#,
            "not a non-negative integer",
        ),
    ];
    let dir = tempfile::TempDir::new().unwrap();
    let text: String = bad
        .iter()
        .map(|(l, _)| format!("{l}\n"))
        .collect::<String>()
        + "// a comment\n\n"
        + GOOD
        + "\n";
    let f = write(dir.path(), "cases.jsonl", &text);
    let (cases, malformed) = conformance::load(std::slice::from_ref(&f));
    assert_eq!(cases.len(), 1, "the good line is still read");
    assert_eq!(malformed.len(), bad.len());
    for (i, (m, (_, want))) in malformed.iter().zip(&bad).enumerate() {
        assert_eq!(m.origin, format!("{}:{}", f.display(), i + 1));
        assert!(
            m.error.contains(want),
            "line {}: {:?} should mention {want:?}",
            i + 1,
            m.error
        );
    }
    // Malformed lines count as failures; the good case still runs.
    let r = conformance::run(&cases, &malformed, &sim(), || {}).unwrap();
    assert_eq!((r.passed(), r.failed()), (1, bad.len()));
}

#[test]
#[serial]
fn a_bad_parameter_fails_only_its_case() {
    let cases: Vec<_> = [
        r#"{"id": "p1", "op": "slice", "input": {"dtype": "int8", "shape": [1], "data": [1]}, "params": {"dim": "zero", "start": 0, "end": 1, "step": 1}, "expect": {"error": "invalid_argument"}}"#,
        r#"{"id": "p2", "op": "sampled_slice", "input": {"dtype": "int8", "shape": [1], "data": [1]}, "params": {"start": [0], "size": [1], "stride": [1], "mode": "mirror"}, "expect": {"error": "invalid_argument"}}"#,
        GOOD,
    ]
    .iter()
    .map(|l| parse_case(l, "t").unwrap())
    .collect();
    let r = conformance::run(&cases, &[], &sim(), || {}).unwrap();
    assert_eq!((r.passed(), r.failed()), (1, 2));
    assert!(
        r.outcomes[0].reason.contains("malformed case") && r.outcomes[0].reason.contains("dim"),
        "{}",
        r.outcomes[0].reason
    );
    assert!(
        r.outcomes[1].reason.contains("mode"),
        "{}",
        r.outcomes[1].reason
    );
}

#[test]
#[serial]
fn results_and_errors_must_match_exactly() {
    let cases: Vec<_> = [
        // Expects an error, gets a result.
        r#"{"id": "e->r", "op": "slice", "input": {"dtype": "int8", "shape": [2], "data": [1, 2]}, "params": {"dim": 0, "start": 0, "end": 1, "step": 1}, "expect": {"error": "invalid_argument"}}"#,
        // Expects a result, gets an error.
        r#"{"id": "r->e", "op": "slice", "input": {"dtype": "int8", "shape": [2], "data": [1, 2]}, "params": {"dim": 5, "start": 0, "end": 1, "step": 1}, "expect": {"dtype": "int8", "shape": [1], "data": [1]}}"#,
        // The wrong kind of error.
        r#"{"id": "kind", "op": "slice", "input": {"dtype": "int8", "shape": [2], "data": [1, 2]}, "params": {"dim": 5, "start": 0, "end": 1, "step": 1}, "expect": {"error": "unsupported_op"}}"#,
        // A wrong element: the first difference is named.
        r#"{"id": "data", "op": "slice", "input": {"dtype": "float32", "shape": [3], "data": [1, 2, 3]}, "params": {"dim": 0, "start": 0, "end": 3, "step": 1}, "expect": {"dtype": "float32", "shape": [3], "data": [1, 2, 4]}}"#,
        // -0.0 is not 0.0: comparison is bitwise.
        r#"{"id": "zero", "op": "slice", "input": {"dtype": "float32", "shape": [1], "data": [-0.0]}, "params": {"dim": 0, "start": 0, "end": 1, "step": 1}, "expect": {"dtype": "float32", "shape": [1], "data": [0.0]}}"#,
        // The wrong shape.
        r#"{"id": "shape", "op": "slice", "input": {"dtype": "int8", "shape": [2], "data": [1, 2]}, "params": {"dim": 0, "start": 0, "end": 2, "step": 1}, "expect": {"dtype": "int8", "shape": [1, 2], "data": [1, 2]}}"#,
        // A NaN that matches.
        r#"{"id": "nan", "op": "slice", "input": {"dtype": "float32", "shape": [1], "data": ["nan"]}, "params": {"dim": 0, "start": 0, "end": 1, "step": 1}, "expect": {"dtype": "float32", "shape": [1], "data": ["nan"]}}"#,
    ]
    .iter()
    .map(|l| parse_case(l, "t").unwrap())
    .collect();
    let r = conformance::run(&cases, &[], &sim(), || {}).unwrap();
    let status: Vec<Status> = r.outcomes.iter().map(|o| o.status).collect();
    use Status::*;
    assert_eq!(
        status,
        [Failed, Failed, Failed, Failed, Failed, Failed, Passed]
    );
    let reason = |id: &str| {
        r.outcomes
            .iter()
            .find(|o| o.id == id)
            .unwrap()
            .reason
            .clone()
    };
    assert!(
        reason("e->r").contains("expected error invalid_argument, got a int8 tensor"),
        "{}",
        reason("e->r")
    );
    assert!(
        reason("r->e").contains("got error invalid_argument"),
        "{}",
        reason("r->e")
    );
    assert!(
        reason("data").contains("element 2: expected 4.0") && reason("data").contains("got 3.0"),
        "{}",
        reason("data")
    );
    assert!(reason("zero").contains("0x80000000"), "{}", reason("zero"));
}

#[test]
#[serial]
fn reports_in_text_json_and_junit() {
    let cases: Vec<_> = [GOOD, r#"{"id": "bad<&>", "op": "subtensor", "input": {"dtype": "int8", "shape": [2, 2], "data": [1, 2, 3, 4]}, "params": {"start_coord": [0], "first_out_dim_size": 1}, "expect": {"error": "invalid_argument"}}"#]
        .iter()
        .map(|l| parse_case(l, "t").unwrap())
        .collect();
    let r = conformance::run(&cases, &[], &sim(), || {}).unwrap();
    let text = r.text(10);
    assert!(
        text.contains("slice") && text.contains("subtensor") && text.contains("bad<&>"),
        "{text}"
    );
    assert!(
        text.trim_end()
            .ends_with("conformance: 1 passed, 1 failed, 0 skipped"),
        "{text}"
    );
    let j: serde_json::Value = serde_json::from_str(&r.json()).unwrap();
    assert_eq!(j["backend"], "sim");
    assert_eq!(j["soc"], "Ascend910B3");
    assert_eq!(
        (
            j["total"].as_u64(),
            j["passed"].as_u64(),
            j["failed"].as_u64(),
            j["skipped"].as_u64()
        ),
        (Some(2), Some(1), Some(1), Some(0))
    );
    assert_eq!(j["failures"][0]["id"], "bad<&>");
    assert!(j["failures"][0]["reason"]
        .as_str()
        .unwrap()
        .contains("expected error"));
    let x = r.junit();
    assert!(x.starts_with("<?xml"));
    assert!(
        x.contains(r#"<testsuites name="npu-ops conformance" tests="2" failures="1" skipped="0">"#),
        "{x}"
    );
    assert!(
        x.contains(r#"name="bad&lt;&amp;&gt;""#),
        "ids are escaped: {x}"
    );
    assert!(x.contains("<failure message="));
    assert_eq!(x.matches("<testsuite ").count(), 2);
}

#[test]
#[serial]
fn the_command_exits_by_outcome_and_writes_reports() {
    let exe = env!("CARGO_BIN_EXE_npu-ops");
    let dir = tempfile::TempDir::new().unwrap();
    let good = write(dir.path(), "good/a.jsonl", &format!("{GOOD}\n"));
    write(
        dir.path(),
        "good/nested/b.jsonl",
        &format!("{}\n", GOOD.replace("\"ok\"", "\"ok2\"")),
    );
    write(dir.path(), "good/ignored.txt", "not a case file");
    let report = dir.path().join("r.json");
    let junit = dir.path().join("r.xml");
    let out = Command::new(exe)
        .args(["conformance", "--backend", "sim"])
        .arg(good.parent().unwrap())
        .arg("--report")
        .arg(&report)
        .arg("--junit")
        .arg(&junit)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains("conformance: 2 passed, 0 failed, 0 skipped"),
        "{stdout}"
    );
    assert!(std::fs::read_to_string(&report)
        .unwrap()
        .contains("\"passed\": 2"));
    assert!(std::fs::read_to_string(&junit)
        .unwrap()
        .contains("<testcase"));
    // A failing case: exit status 1; --filter selects by id.
    let bad = write(
        dir.path(),
        "bad.jsonl",
        &format!(
            "{GOOD}\n{}\n",
            GOOD.replace("[2, 3]}}", "[2, 4]}}")
                .replace("\"ok\"", "\"wrong\"")
        ),
    );
    let out = Command::new(exe)
        .args(["conformance", "--backend", "sim"])
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("wrong: first difference at element 1"));
    let out = Command::new(exe)
        .args(["conformance", "--backend", "sim", "--filter", "ok"])
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    // A missing file is reported and fails the run.
    let out = Command::new(exe)
        .args([
            "conformance",
            "--backend",
            "sim",
            "/nonexistent/cases.jsonl",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("cannot read"));
    // info describes the backend.
    let out = Command::new(exe)
        .args(["info", "--backend", "sim"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success()
            && text.contains("backend:   sim")
            && text.contains("Ascend910B3")
            && text.contains("device 0"),
        "{text}"
    );
}

#[test]
#[serial]
fn the_project_suite_passes_on_the_simulator() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    let (cases, malformed) = conformance::load(&[dir]);
    assert!(malformed.is_empty(), "{malformed:?}");
    assert!(cases.len() > 1000);
    let r = conformance::run(&cases, &malformed, &sim(), || {}).unwrap();
    assert_eq!(r.failed(), 0, "{}", r.text(20));
}

/// A case line whose input is `dtype` with `values` written as given.
fn data_line(dtype: &str, values: &[String]) -> String {
    format!(
        r#"{{"id": "n", "op": "slice", "input": {{"dtype": "{dtype}", "shape": [{}], "data": [{}]}}, "params": {{}}, "expect": {{"error": "invalid_argument"}}}}"#,
        values.len(),
        values.join(", ")
    )
}

/// The input bytes `values` read as; panics naming the line's error.
fn read_values(dtype: &str, values: &[String]) -> Vec<u8> {
    match parse_case(&data_line(dtype, values), "t:1") {
        Ok(c) => c.input.bytes,
        Err(e) => panic!("{dtype}: {e}"),
    }
}

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

/// Python's repr of a float writes `e+38` where Rust writes `e38`.
fn python_exponent(s: &str) -> String {
    match s.split_once('e') {
        Some((m, e)) if !e.starts_with('-') => format!("{m}e+{e}"),
        _ => s.to_string(),
    }
}

#[test]
fn numbers_are_read_correctly_rounded() {
    // Every finite float written as the shortest decimal of its f64 value
    // (Rust's `{:?}`, Python's repr) reads back bit for bit.
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut f32s: Vec<f32> = (0..20_000)
        .map(|_| f32::from_bits(rng.next() as u32))
        .filter(|f| f.is_finite())
        .collect();
    f32s.extend([
        f32::MAX,
        f32::MIN,
        f32::MIN_POSITIVE,
        f32::from_bits(1),           // the smallest subnormal
        f32::from_bits(0x007f_ffff), // the largest subnormal
        -f32::from_bits(1),
        -0.0,
        0.0,
    ]);
    assert!(f32s.len() > 19_000);
    let want: Vec<u8> = f32s.iter().flat_map(|f| f.to_le_bytes()).collect();
    let text: Vec<String> = f32s.iter().map(|&f| format!("{:?}", f as f64)).collect();
    assert!(text.contains(&"3.4028234663852886e38".to_string()));
    assert!(text.contains(&"1.401298464324817e-45".to_string()));
    assert_eq!(read_values("float32", &text), want);
    let py: Vec<String> = text.iter().map(|s| python_exponent(s)).collect();
    assert!(py.contains(&"3.4028234663852886e+38".to_string()));
    assert_eq!(read_values("float32", &py), want);
    // complex64: pairs of float32.
    let pairs: Vec<String> = text
        .chunks_exact(2)
        .map(|p| format!("[{}, {}]", p[0], p[1]))
        .collect();
    assert_eq!(
        read_values("complex64", &pairs),
        want[..pairs.len() * 8].to_vec()
    );

    // float16 and bfloat16: every finite value.
    let halves: Vec<half::f16> = (0..=u16::MAX)
        .map(half::f16::from_bits)
        .filter(|h| h.is_finite())
        .collect();
    let text: Vec<String> = halves.iter().map(|h| format!("{:?}", h.to_f64())).collect();
    let want: Vec<u8> = halves.iter().flat_map(|h| h.to_le_bytes()).collect();
    assert_eq!(read_values("float16", &text), want);
    let bhalves: Vec<half::bf16> = (0..=u16::MAX)
        .map(half::bf16::from_bits)
        .filter(|h| h.is_finite())
        .collect();
    let text: Vec<String> = bhalves
        .iter()
        .map(|h| format!("{:?}", h.to_f64()))
        .collect();
    let want: Vec<u8> = bhalves.iter().flat_map(|h| h.to_le_bytes()).collect();
    assert_eq!(read_values("bfloat16", &text), want);

    // float64: random bit patterns and the extremes.
    let mut f64s: Vec<f64> = (0..20_000)
        .map(|_| f64::from_bits(rng.next()))
        .filter(|f| f.is_finite())
        .collect();
    f64s.extend([
        f64::MAX,
        f64::MIN,
        f64::MIN_POSITIVE,
        f64::from_bits(1),
        f64::from_bits(0x000f_ffff_ffff_ffff),
        -0.0,
        0.0,
        0.1,
    ]);
    let text: Vec<String> = f64s.iter().map(|f| format!("{f:?}")).collect();
    let want: Vec<u8> = f64s.iter().flat_map(|f| f.to_le_bytes()).collect();
    assert_eq!(read_values("float64", &text), want);
    let py: Vec<String> = text.iter().map(|s| python_exponent(s)).collect();
    assert_eq!(read_values("float64", &py), want);

    // Zeros: "-0.0" keeps its sign, as Python's json.loads and float()
    // read it; "-0" is read as float("-0") (and Rust's parse) read it, -0.0
    // (Python's json.loads makes it the int 0, which has no sign); "0" and
    // "0.0" are +0.0. An integer dtype reads "-0" as 0.
    let zeros = ["-0.0", "-0", "0", "0.0", "-0e0", "0e-5"].map(String::from);
    let bits: Vec<u32> = read_values("float32", &zeros)
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
        .collect();
    assert_eq!(bits, [0x8000_0000, 0x8000_0000, 0, 0, 0x8000_0000, 0]);
    assert_eq!(read_values("int8", &zeros[1..4]), [0, 0, 0]);
    // A value that is not exactly a float32 is still refused.
    assert!(parse_case(&data_line("float32", &["0.1".into()]), "t:1")
        .unwrap_err()
        .contains("not exactly representable in float32"));
    assert!(
        parse_case(&data_line("float32", &["16777217".into()]), "t:1")
            .unwrap_err()
            .contains("not exactly representable")
    );
}

#[test]
#[serial]
fn a_bad_soc_fails_only_its_cases() {
    let with_soc = |id: &str, soc: &str| {
        let line = GOOD.replacen(
            r#""id": "ok","#,
            &format!(
                r#""id": "{id}", "soc": {},"#,
                serde_json::to_string(soc).unwrap()
            ),
            1,
        );
        parse_case(&line, id).unwrap()
    };
    let cases = vec![
        with_soc("nul", "Ascend910B3\0"),
        with_soc("nul-only", "\0"),
        with_soc("unknown", "Ascend999"),
        with_soc("empty", ""),
        with_soc("case", "ascend910b3"),
        with_soc("space", " Ascend910B3"),
        with_soc("named", "Ascend910B3"),
        parse_case(GOOD, "good").unwrap(),
    ];
    let r = conformance::run(&cases, &[], &sim(), || {}).unwrap();
    assert_eq!((r.passed(), r.failed()), (2, 6), "{}", r.text(20));
    let reason = |id: &str| {
        let o = r.outcomes.iter().find(|o| o.id == id).unwrap();
        assert_eq!(o.status, Status::Failed, "{id}");
        o.reason.clone()
    };
    for id in ["nul", "nul-only"] {
        assert!(reason(id).contains("NUL"), "{id}: {}", reason(id));
    }
    for id in ["unknown", "empty", "case", "space"] {
        assert!(reason(id).contains("unknown SoC"), "{id}: {}", reason(id));
    }
    assert!(reason("unknown").contains("\"Ascend999\""));
    assert!(std::env::var_os("NPU_SIM_SOC").is_none());
    // A bad default SoC fails the cases that name none.
    let opts = Options {
        default_soc: "Ascend910\0B3".into(),
        ..sim()
    };
    let r = conformance::run(&cases[6..], &[], &opts, || {}).unwrap();
    assert_eq!((r.passed(), r.failed()), (1, 1), "{}", r.text(20));
    assert!(r
        .outcomes
        .iter()
        .any(|o| o.id == "ok" && o.reason.contains("NUL")));
}

#[test]
#[serial]
fn each_line_is_decoded_alone() {
    let dir = tempfile::TempDir::new().unwrap();
    let p = dir.path().join("cases.jsonl");
    let mut bytes = b"\xEF\xBB\xBF".to_vec(); // a byte-order mark
    bytes.extend(GOOD.as_bytes());
    bytes.extend(b"\r\n// a comment\r\n\r\n");
    bytes.extend(b"{\"id\": \"caf\xe9\", \"op\": \"slice\"}\r\n"); // Latin-1: not UTF-8
    bytes.extend(GOOD.replace("\"ok\"", "\"ok-\u{e9}\u{4e2d}\"").as_bytes());
    bytes.extend(b"\n");
    bytes.extend(GOOD.replace("\"ok\"", "\"last\"").as_bytes()); // no final newline
    std::fs::write(&p, &bytes).unwrap();
    let (cases, malformed) = conformance::load(std::slice::from_ref(&p));
    let ids: Vec<&str> = cases.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["ok", "ok-\u{e9}\u{4e2d}", "last"], "{malformed:?}");
    assert_eq!(cases[0].origin, format!("{}:1", p.display()));
    assert_eq!(cases[2].origin, format!("{}:6", p.display()));
    assert_eq!(malformed.len(), 1, "{malformed:?}");
    assert_eq!(malformed[0].origin, format!("{}:4", p.display()));
    assert!(
        malformed[0].error.contains("not UTF-8") && malformed[0].error.contains("0xe9"),
        "{}",
        malformed[0].error
    );
}

#[test]
#[serial]
fn a_duplicate_id_fails_naming_both_origins() {
    let dir = tempfile::TempDir::new().unwrap();
    let a = write(dir.path(), "a.jsonl", &format!("{GOOD}\n"));
    let b = write(
        dir.path(),
        "b.jsonl",
        &format!("{}\n{GOOD}\n", GOOD.replace("\"ok\"", "\"ok2\"")),
    );
    let (cases, malformed) = conformance::load(&[a.clone(), b.clone()]);
    assert!(malformed.is_empty(), "{malformed:?}");
    let r = conformance::run(&cases, &malformed, &sim(), || {}).unwrap();
    assert_eq!((r.passed(), r.failed()), (2, 1), "{}", r.text(20));
    let dup: Vec<_> = r
        .outcomes
        .iter()
        .filter(|o| o.status == Status::Failed)
        .collect();
    assert_eq!(dup[0].id, "ok");
    let (first, again) = (format!("{}:1", a.display()), format!("{}:2", b.display()));
    assert!(
        dup[0].reason.contains("duplicate id")
            && dup[0].reason.contains(&first)
            && dup[0].reason.contains(&again),
        "{}",
        dup[0].reason
    );
}

#[cfg(unix)]
#[test]
#[serial]
fn each_file_is_read_once_through_symbolic_links() {
    use std::os::unix::fs::symlink;
    let dir = tempfile::TempDir::new().unwrap();
    let root = dir.path().join("cases");
    write(&root, "a.jsonl", &format!("{GOOD}\n"));
    write(
        &root,
        "sub/b.jsonl",
        &format!("{}\n", GOOD.replace("\"ok\"", "\"ok2\"")),
    );
    symlink(".", root.join("loop")).unwrap(); // a folder that holds itself
    symlink("a.jsonl", root.join("alias.jsonl")).unwrap(); // one file, two names
    let other = dir.path().join("other");
    write(
        &other,
        "c.jsonl",
        &format!("{}\n", GOOD.replace("\"ok\"", "\"ok3\"")),
    );
    symlink("..", other.join("up")).unwrap(); // a loop through the parent
    let (cases, malformed) = conformance::load(&[
        root.clone(),
        root.join("loop"),
        root.join("a.jsonl"),
        other.clone(),
    ]);
    assert!(malformed.is_empty(), "{malformed:?}");
    let mut ids: Vec<&str> = cases.iter().map(|c| c.id.as_str()).collect();
    ids.sort();
    assert_eq!(ids, ["ok", "ok2", "ok3"]);
    assert_eq!(
        cases[0].origin,
        format!("{}:1", root.join("a.jsonl").display())
    );
    // A dangling link is a file that cannot be read, not a stop.
    symlink("missing.jsonl", root.join("dangling.jsonl")).unwrap();
    let (cases, malformed) = conformance::load(std::slice::from_ref(&root));
    assert_eq!(cases.len(), 2);
    assert_eq!(malformed.len(), 1);
    assert!(
        malformed[0].origin.ends_with("dangling.jsonl")
            && malformed[0].error.contains("cannot read")
    );
}

#[test]
#[serial]
fn a_runtime_memory_limit_bounds_what_it_allocates() {
    use npu_ops::{Error, Runtime, Tensor};
    let rt = Runtime::new(Backend::Simulator).unwrap();
    let s = rt.stream().unwrap();
    let base = rt.memory_in_use();
    rt.set_memory_limit(Some(base + (1 << 20)));
    match Tensor::empty(&s, DType::U8, &[2 << 20]) {
        Err(Error::OutOfMemory { bytes, message }) => {
            assert_eq!(bytes, 2 << 20);
            assert!(
                message.contains("memory limit")
                    && message.contains(&(base + (1 << 20)).to_string()),
                "{message}"
            );
        }
        other => panic!("expected OutOfMemory, got {other:?}"),
    }
    assert_eq!(
        rt.memory_in_use(),
        base,
        "a refused allocation is not counted"
    );
    let a = Tensor::from_slice(&s, &[1 << 17], &vec![7i32; 1 << 17]).unwrap(); // 512 KiB
    assert_eq!(rt.memory_in_use(), base + (512 << 10));
    let clone = rt.clone();
    assert_eq!(clone.memory_in_use(), base + (512 << 10), "clones share it");
    assert!(matches!(
        Tensor::empty(&s, DType::U8, &[768 << 10]),
        Err(Error::OutOfMemory { .. })
    ));
    // Work that uses a tensor keeps it counted until it has run.
    let b = s.slice(&a, 0, 0, 1 << 16, 1).unwrap(); // 256 KiB
    assert!(rt.memory_in_use() >= base + (768 << 10));
    assert_eq!(b.to_vec::<i32>().unwrap()[..2], [7, 7]);
    drop((a, b));
    s.synchronize().unwrap();
    let after = rt.memory_in_use();
    assert!(
        after < base + (512 << 10),
        "freed memory is uncounted: {after}"
    );
    let c = Tensor::empty(&s, DType::U8, &[768 << 10]).unwrap();
    drop(c);
    // No limit: only the device bounds it.
    rt.set_memory_limit(None);
    let d = Tensor::empty(&s, DType::U8, &[2 << 20]).unwrap();
    assert!(rt.memory_in_use() >= base + (2 << 20));
    drop(d);
}

#[test]
fn sizes_and_the_default_case_memory() {
    use conformance::parse_size;
    assert_eq!(parse_size("512M"), Ok(512 << 20));
    assert_eq!(parse_size("2G"), Ok(2 << 30));
    assert_eq!(parse_size("2GiB"), Ok(2 << 30));
    assert_eq!(parse_size("64k"), Ok(64 << 10));
    assert_eq!(parse_size("1048576"), Ok(1 << 20));
    for bad in [
        "0",
        "",
        "M",
        "-1G",
        "1.5G",
        "2X",
        "99999999999999999999",
        "20000000000T",
    ] {
        assert!(parse_size(bad).is_err(), "{bad:?}");
    }
    // 1/16 of MemAvailable.
    let avail_kb: usize = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("MemAvailable:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(16 << 20); // where unreadable: 1 GiB
    let d = conformance::default_case_memory();
    // MemAvailable moves between two reads (other processes run).
    let want = avail_kb * 1024 / 16;
    assert!(
        d >= want / 2 && d <= want.saturating_mul(2),
        "{d} vs {want}"
    );
    assert_eq!(Options::default().case_memory.map(|m| m > 0), Some(true));
}

#[test]
#[serial]
fn a_case_over_the_memory_bound_fails_naming_it() {
    let huge = r#"{"id": "huge", "op": "as_strided", "input": {"dtype": "float32", "shape": [1], "data": [1]}, "params": {"size": [1073741824], "stride": [0], "offset": 0}, "expect": {"error": "invalid_argument"}}"#;
    // An output no device could hold is still the operator's invalid_argument.
    let too_big = r#"{"id": "device", "op": "as_strided", "input": {"dtype": "float32", "shape": [1], "data": [1]}, "params": {"size": [1099511627776], "stride": [0], "offset": 0}, "expect": {"error": "invalid_argument"}}"#;
    let cases: Vec<_> = [huge, too_big, GOOD]
        .iter()
        .map(|l| parse_case(l, "t").unwrap())
        .collect();
    let opts = Options {
        case_memory: Some(64 << 20),
        ..sim()
    };
    let r = conformance::run(&cases, &[], &opts, || {}).unwrap();
    let status: Vec<Status> = r.outcomes.iter().map(|o| o.status).collect();
    assert_eq!(
        status,
        [Status::Failed, Status::Passed, Status::Passed],
        "{}",
        r.text(20)
    );
    let reason = &r.outcomes[0].reason;
    assert!(
        reason.contains("--case-memory") && reason.contains(&(64usize << 20).to_string()),
        "{reason}"
    );
}

#[cfg(unix)]
#[test]
#[serial]
fn hostile_lines_fail_alone_and_the_run_reports_every_case() {
    let exe = env!("CARGO_BIN_EXE_npu-ops");
    let dir = tempfile::TempDir::new().unwrap();
    let root = dir.path().join("cases");
    std::fs::create_dir_all(&root).unwrap();
    let mut good = b"\xEF\xBB\xBF".to_vec();
    good.extend(GOOD.as_bytes());
    good.extend(b"\r\n");
    std::fs::write(root.join("good.jsonl"), good).unwrap();
    let hostile: Vec<Vec<u8>> = vec![
        // A view whose element count overflows.
        br#"{"id":"wrap","op":"slice","input":{"dtype":"int8","shape":[2],"data":[1,2],"view":{"shape":[4611686018427387905,2],"strides":[0,1],"offset":0}},"params":{"dim":0,"start":0,"end":1,"step":1},"expect":{"error":"invalid_argument"}}"#.to_vec(),
        // A NUL byte in the SoC name.
        br#"{"id":"nul","op":"slice","soc":"Ascend910B3\u0000","input":{"dtype":"int8","shape":[2],"data":[1,2]},"params":{"dim":0,"start":0,"end":1,"step":1},"expect":{"dtype":"int8","shape":[1],"data":[1]}}"#.to_vec(),
        // 236 bytes asking for 4 GiB.
        br#"{"id":"big","op":"as_strided","input":{"dtype":"float32","shape":[1],"data":[1]},"params":{"size":[1073741824],"stride":[0],"offset":0},"expect":{"error":"invalid_argument"}}"#.to_vec(),
        // Not UTF-8.
        b"{\"id\":\"latin1-\xe9\",\"op\":\"slice\"}".to_vec(),
        // A duplicate id.
        GOOD.as_bytes().to_vec(),
    ];
    std::fs::write(root.join("hostile.jsonl"), hostile.join(&b'\n')).unwrap();
    std::os::unix::fs::symlink(".", root.join("loop")).unwrap();
    let report = dir.path().join("r.json");
    let out = Command::new(exe)
        .args(["conformance", "--backend", "sim", "--case-memory", "256M"])
        .arg(&root)
        .arg("--report")
        .arg(&report)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    let j: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    // Each file read once: 1 + 5 lines, 6 outcomes.
    assert_eq!(
        (
            j["total"].as_u64(),
            j["passed"].as_u64(),
            j["failed"].as_u64()
        ),
        (Some(6), Some(2), Some(4)),
        "{j:#}"
    );
    let failures: Vec<(String, String)> = j["failures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["id"].as_str().unwrap().into(),
                f["reason"].as_str().unwrap().into(),
            )
        })
        .collect();
    let hostile_file = root.join("hostile.jsonl").display().to_string();
    let reason = |id: &str| {
        failures
            .iter()
            .find(|(i, _)| i == id)
            .map(|(_, r)| r.clone())
            .unwrap_or_else(|| panic!("no failure {id}: {failures:?}"))
    };
    assert!(reason("nul").contains("NUL"), "{}", reason("nul"));
    assert!(
        reason("big").contains("--case-memory") && reason("big").contains("268435456"),
        "{}",
        reason("big")
    );
    assert!(
        reason(&format!("{hostile_file}:4")).contains("not UTF-8"),
        "{failures:?}"
    );
    assert!(
        reason("ok").contains(&format!("{hostile_file}:5"))
            && reason("ok").contains(&format!("{}:1", root.join("good.jsonl").display())),
        "{}",
        reason("ok")
    );
    // The good case and the overflowing view passed.
    assert!(!failures.iter().any(|(i, _)| i == "wrap"), "{failures:?}");
    assert!(
        stdout.contains("conformance: 2 passed, 4 failed, 0 skipped"),
        "{stdout}"
    );
}

#[test]
#[serial]
fn bad_options_exit_with_status_2() {
    let exe = env!("CARGO_BIN_EXE_npu-ops");
    let dir = tempfile::TempDir::new().unwrap();
    let f = write(dir.path(), "a.jsonl", &format!("{GOOD}\n"));
    for args in [
        &["--case-memory", "0"][..],
        &["--case-memory", "lots"],
        &["--soc", "Ascend999"],
        &["--soc", "ascend910b3"],
    ] {
        let out = Command::new(exe)
            .args(["conformance", "--backend", "sim"])
            .args(args)
            .arg(&f)
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!out.stderr.is_empty());
    }
    let out = Command::new(exe)
        .args(["conformance", "--backend", "sim", "--case-memory", "512M"])
        .arg(&f)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
}
