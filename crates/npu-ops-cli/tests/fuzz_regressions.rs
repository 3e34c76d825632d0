//! Replays every committed fuzz input through the fuzz targets' own bodies,
//! on stable, as part of `cargo test`: the minimised corpus of each target
//! (`fuzz/corpus/<target>/`) and every input that ever found a bug
//! (`fuzz/regressions/<target>/`, named after the defect). The fuzzers
//! themselves run under `ci/fuzz-smoke.sh`.

#[path = "../../../tests/support/abi_seq.rs"]
mod abi_seq;
#[path = "support/case_file.rs"]
mod case_file;
#[path = "../../../tests/support/oracle.rs"]
mod oracle;

use npu_ops::{Backend, Runtime};
use serial_test::serial;
use std::path::{Path, PathBuf};

/// Every committed input of `target`, sorted.
fn inputs(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz");
    let mut out = Vec::new();
    for kind in ["corpus", "regressions"] {
        let dir = root.join(kind).join(target);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_file() {
                let data = std::fs::read(&p).expect("readable input");
                out.push((p, data));
            }
        }
    }
    out.sort();
    out
}

fn sim() -> bool {
    if std::env::var("NPU_OPS_BACKEND").as_deref() == Ok("cann") {
        eprintln!("fuzz regressions: skipped: the fuzz targets drive the embedded simulator");
        return false;
    }
    true
}

#[test]
#[serial]
fn ops_inputs_agree_with_cpu_ref() {
    if !sim() {
        return;
    }
    let rt = Runtime::new(Backend::Simulator).unwrap();
    let s = rt.stream().unwrap();
    let all = inputs("ops");
    for (path, data) in &all {
        if let oracle::Verdict::Mismatch(m) = oracle::run_case(&mut oracle::Bytes(data), &s, true) {
            panic!("{}: {m}", path.display());
        }
    }
    assert_eq!(npu_sim::stats().internal_errors, 0);
    eprintln!("ops: {} inputs replayed", all.len());
}

#[test]
#[serial]
fn sim_abi_inputs_never_crash() {
    if !sim() {
        return;
    }
    let all = inputs("sim_abi");
    for (_, data) in &all {
        abi_seq::run(data);
    }
    eprintln!("sim_abi: {} inputs replayed", all.len());
}

#[test]
#[serial]
fn case_reader_inputs_are_all_reported() {
    if !sim() {
        return;
    }
    let all = inputs("case_reader");
    for (_, data) in &all {
        case_file::run(data);
    }
    eprintln!("case_reader: {} inputs replayed", all.len());
}
