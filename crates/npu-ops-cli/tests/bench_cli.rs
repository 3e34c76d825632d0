//! `npu-ops bench`: its JSON report has every field with sane values, the
//! library API gives the same, bad options exit 2. No timing is asserted
//! (performance claims come from the bench itself).

use npu_ops::Backend;
use npu_ops_cli::bench::{self, Options};
use serde_json::Value;
use std::process::Command;

fn npu_ops() -> Command {
    Command::new(env!("CARGO_BIN_EXE_npu-ops"))
}

/// Runs `npu-ops bench ARGS --json FILE` and returns the JSON.
fn bench_json(args: &[&str]) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bench.json");
    let out = npu_ops()
        .arg("bench")
        .args(args)
        .arg("--json")
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

fn positive(v: &Value, what: &str) -> f64 {
    let x = v
        .as_f64()
        .unwrap_or_else(|| panic!("{what} is not a number: {v}"));
    assert!(x.is_finite() && x > 0.0, "{what} = {x}");
    x
}

#[test]
fn cases_have_every_field() {
    let j = bench_json(&["--filter", "clone_4k_f32"]);
    let cases = j["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 1, "{j}");
    let c = &cases[0];
    assert_eq!(c["name"], "clone_4k_f32");
    assert_eq!(c["op"], "copy");
    assert_eq!(c["dtype"], "f32");
    assert_eq!(c["out_bytes"], 4096);
    assert!(c["threads"].as_u64().unwrap() >= 1);
    for k in [
        "gbps",
        "memcpy_gbps",
        "ratio",
        "median_us",
        "fresh_median_us",
        "memcpy_best_us",
        "ndarray_median_us",
        "vs_ndarray",
        "fresh_vs_ndarray",
        "pipelined_us",
        "pipelined_vs_ndarray",
    ] {
        positive(&c[k], k);
    }
    let vs = c["ndarray_median_us"].as_f64().unwrap() / c["pipelined_us"].as_f64().unwrap();
    assert!((vs / c["pipelined_vs_ndarray"].as_f64().unwrap() - 1.0).abs() < 1e-3);
    let vs = c["ndarray_median_us"].as_f64().unwrap() / c["median_us"].as_f64().unwrap();
    assert!((vs / c["vs_ndarray"].as_f64().unwrap() - 1.0).abs() < 1e-3);
    let ratio = c["gbps"].as_f64().unwrap() / c["memcpy_gbps"].as_f64().unwrap();
    assert!((ratio / c["ratio"].as_f64().unwrap() - 1.0).abs() < 1e-3);
    // Only small cases are timed pipelined.
    let j1 = bench_json(&["--filter", "clone_1m_f32"]);
    let big = &j1["cases"][0];
    assert!(
        big["pipelined_us"].is_null() && big["pipelined_vs_ndarray"].is_null(),
        "{big}"
    );
    // The launch figures run only when the filter selects them.
    for k in ["launch", "allocs_per_prepared_launch", "c_calls_per_launch"] {
        assert!(j.get(k).is_some_and(Value::is_null), "{k}: {j}");
    }
}

#[test]
fn launch_figures_allocs_and_c_calls() {
    let j = bench_json(&["--filter", "launch"]);
    assert_eq!(j["cases"].as_array().unwrap().len(), 0);
    let l = &j["launch"];
    for k in [
        "prepared_us",
        "prepared_sync_us",
        "raw_c_us",
        "raw_c_sync_us",
        "oneshot_us",
        "oneshot_sync_us",
        "fresh_sync_us",
        "first_result_us",
        "seq_prepared_us",
        "seq_graph_replay_us",
    ] {
        positive(&l[k], k);
    }
    assert_eq!(l["seq_launches"], 32);
    let worse = l["first_result_idle_us"]
        .as_f64()
        .unwrap()
        .max(l["first_result_busy_us"].as_f64().unwrap());
    assert_eq!(l["first_result_us"].as_f64().unwrap(), worse);
    // The binary installs the counting allocator: a host figure is there.
    let a = &j["allocs_per_prepared_launch"];
    assert!(a["host"].as_f64().unwrap() >= 0.0, "{a}");
    assert!(a["device"].as_f64().unwrap() >= 0.0, "{a}");
    // The split counts: pipelined launches and launch + synchronize pairs.
    let split = &j["allocs_per_launch"];
    for k in [
        "prepared_pipelined",
        "prepared_sync_pair",
        "oneshot_pipelined",
        "oneshot_sync_pair",
    ] {
        for side in ["host", "device"] {
            assert!(
                split[k][side].as_f64().unwrap() >= 0.0,
                "{k}.{side}: {split}"
            );
        }
    }
    assert_eq!(split["prepared_pipelined"]["host"], a["host"]);
    // The layer's overhead is the difference of two figures of the run.
    let over = l["prepared_sync_us"].as_f64().unwrap() - l["raw_c_sync_us"].as_f64().unwrap();
    assert!((l["layer_overhead_sync_us"].as_f64().unwrap() - over).abs() < 1e-3);
    let calls = j["c_calls_per_launch"].as_object().unwrap();
    for op in [
        "slice_oneshot",
        "slice_prepared",
        "index_select",
        "copy_into",
        "as_strided_windows",
        "as_strided_transpose",
        "sampled_slice_wrap",
        "sampled_slice_fill",
        "add_oneshot",
        "add_prepared",
        "mul_oneshot",
        "mul_prepared",
        "cat_last",
        "stack_lead",
        "fill_scalar",
        "zero",
        "cast",
        "tril_lower",
        "embedding_rows",
        "permute_transpose",
        "flip_rows",
        "roll_2d",
        "expand_rows",
        "repeat_rows",
        "reflection_pad2d",
        "sampled_slice_reflect",
        "slice_v2_rows",
        "gather_v2_rows",
        "gather_elements",
        "take",
        "gather_nd_rows",
        "index_copy_rows",
        "masked_select",
        "split_rows",
        "slice_v3_rows",
        "strided_slice_assign_rows",
        "index_rows",
        "view_copy_box",
    ] {
        // Every launch makes at least the operator's own call.
        assert!(calls[op].as_u64().unwrap() >= 1, "{op}: {calls:?}");
        let by_fn = j["c_calls_by_function"][op].as_object().unwrap();
        let sum: u64 = by_fn.values().map(|v| v.as_u64().unwrap()).sum();
        assert_eq!(sum, calls[op].as_u64().unwrap(), "{op}");
    }
    // A repeated launch on the same tensors reuses their descriptors (and
    // ViewCopy its kept window metadata): no aclCreateTensor, where each
    // input cloned per call once made and destroyed one. The others make
    // views per call, or lists (which own their members' descriptors).
    for op in [
        "add_oneshot",
        "mul_oneshot",
        "cast",
        "tril_lower",
        "zero",
        "fill_scalar",
        "expand_rows",
        "embedding_rows",
        "gather_v2_rows",
        "gather_elements",
        "gather_nd_rows",
        "take",
        "index_copy_rows",
        "masked_select",
        "permute_transpose",
        "flip_rows",
        "roll_2d",
        "repeat_rows",
        "reflection_pad2d",
        "slice_v2_rows",
        "slice_v3_rows",
        "strided_slice_assign_rows",
        "as_strided_windows",
        "sampled_slice_wrap",
        "view_copy_box",
    ] {
        let by_fn = j["c_calls_by_function"][op].as_object().unwrap();
        assert!(!by_fn.contains_key("aclCreateTensor"), "{op}: {by_fn:?}");
    }
    assert_eq!(calls["view_copy_box"], 2, "{calls:?}");
}

#[test]
fn library_api_checks_and_times() {
    let opts = Options {
        backend: Backend::Simulator,
        filter: Some("slice_d0_s2_4k_f32".into()),
        alloc_counter: None,
    };
    let mut seen = Vec::new();
    let r = bench::run(&opts, |_, _, what| seen.push(what.to_string())).unwrap();
    assert!(r.ok());
    assert_eq!(r.cases.len(), 1);
    let t = r.cases[0].outcome.as_ref().unwrap();
    assert!(t.gbps.is_finite() && t.gbps > 0.0 && t.ratio > 0.0 && t.runs >= 3);
    assert!(t.fresh_seconds > 0.0 && t.memcpy_seconds > 0.0);
    assert!(t.ndarray_seconds.is_some_and(|n| n > 0.0));
    assert!(r.launch.is_none() && r.allocs.is_none() && r.c_calls.is_none());
    assert!(seen.iter().any(|s| s == "slice_d0_s2_4k_f32"));
    let text = r.text();
    assert!(text.contains("slice_d0_s2_4k_f32"), "{text}");
    let j: Value = serde_json::from_str(&r.json()).unwrap();
    assert_eq!(j["cases"][0]["name"], "slice_d0_s2_4k_f32");
}

#[test]
fn every_case_builds_and_checks_at_4k() {
    // The host check of every base and dtype, small: each builds (runs
    // once and compares) on the simulator.
    let rt = npu_ops::Runtime::new(Backend::Simulator).unwrap();
    let s = rt.stream().unwrap();
    for base in bench::Base::ALL {
        for dtype in [
            npu_ops::DType::F32,
            npu_ops::DType::F16,
            npu_ops::DType::I64,
        ] {
            let spec = bench::CaseSpec::new(base, dtype, "4k", 4096);
            if !base.supports(dtype) {
                // Not in the suite (SliceV3 has no INT64): the operator
                // refuses the dtype.
                let e = spec.build(&s).err().expect("an unsupported dtype");
                assert!(e.to_string().contains("dtype"), "{}: {e}", spec.name);
                continue;
            }
            let case = spec.build(&s).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(case.output().numel() * dtype.size(), 4096);
            // ndarray's row computes the same bytes (checked in build too);
            // the elementwise, fill, cast, pad and triangle cases have none,
            // nor the element gather and the masked select (no ndarray
            // operation).
            match case.nd() {
                Some(nd) => case.check("(ndarray)", &nd.output_bytes()).unwrap(),
                None => assert!(
                    [
                        "add",
                        "mul",
                        "fill_scalar",
                        "zero",
                        "cast",
                        "reflection_pad2d",
                        "tril",
                        "gather",
                        "masked_select"
                    ]
                    .contains(&spec.op())
                        || spec.base == bench::Base::SampledReflect,
                    "{}",
                    spec.name
                ),
            }
        }
    }
}

#[test]
fn check_catches_a_wrong_output() {
    // The check every timed form goes through must fail on a wrong byte.
    let rt = npu_ops::Runtime::new(Backend::Simulator).unwrap();
    let s = rt.stream().unwrap();
    let spec = bench::CaseSpec::new(bench::Base::SliceD0S2, npu_ops::DType::F32, "4k", 4096);
    let case = spec.build(&s).unwrap();
    let mut got = case.output().to_bytes().unwrap();
    case.check("(into)", &got).unwrap();
    got[4 * 7 + 1] ^= 1;
    match case.check("(into)", &got) {
        Err(bench::BenchError::Mismatch { element, .. }) => assert_eq!(element, 7),
        other => panic!("{other:?}"),
    }
    assert!(case.check("(into)", &got[..100]).is_err());
}

#[test]
fn raw_c_path_matches_the_slice() {
    let rt = npu_ops::Runtime::new(Backend::Simulator).unwrap();
    let s = rt.stream().unwrap();
    let probe = bench::LaunchProbe::new(&s).unwrap();
    // `raw` checks its output against the host before returning it.
    let raw = probe.raw().unwrap();
    for _ in 0..3 {
        raw.launch().unwrap();
    }
    raw.synchronize().unwrap();
}

#[test]
fn bad_options_exit_2() {
    for args in [
        &["bench", "--no-such-option"][..],
        &["bench", "--backend", "gpu"],
        &["bench", "--filter", "no_such_case"],
    ] {
        let out = npu_ops().args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
}
