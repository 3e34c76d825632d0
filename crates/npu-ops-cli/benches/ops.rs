//! Criterion benches of `npu-ops bench`'s suite, for regression tracking:
//! every 1 MiB case (one launch plus a synchronise into a preallocated
//! output, each case checked against the host first), the 1 MiB memcpy
//! they are compared with, and the 4 KiB launch figures (prepared and
//! one-shot slices, 100 launches per synchronise, and one launch plus
//! synchronise). The cases come from `npu_ops_cli::bench` (the
//! `npu-ops bench` suite: `cargo bench -p npu-ops-cli --bench ops`); the backend is `Auto` (the
//! simulator without CANN; `NPU_OPS_BACKEND` overrides).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use npu_ops::{Backend, Runtime, Stream};
use npu_ops_cli::bench::{suite, LaunchProbe, Memcpy};
use std::time::Duration;

fn stream() -> (Runtime, Stream) {
    let rt = Runtime::new(Backend::Auto).expect("a backend");
    let s = rt.stream().expect("a stream");
    (rt, s)
}

fn cases_1m(c: &mut Criterion) {
    let (_rt, s) = stream();
    let mut g = c.benchmark_group("1m");
    g.sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    let mut m = Memcpy::new(1 << 20);
    g.throughput(Throughput::Bytes(2 << 20));
    g.bench_function("memcpy_1m", |b| b.iter(|| m.copy()));
    for spec in suite().into_iter().filter(|c| c.name.contains("_1m_")) {
        let case = spec
            .build(&s)
            .unwrap_or_else(|e| panic!("{}: {e}", spec.name));
        g.throughput(Throughput::Bytes(spec.logical_bytes() as u64));
        g.bench_function(&spec.name, |b| {
            b.iter(|| {
                case.run().unwrap();
                s.synchronize().unwrap();
            })
        });
    }
    g.finish();
}

fn launch_4k(c: &mut Criterion) {
    let (_rt, s) = stream();
    let probe = LaunchProbe::new(&s).unwrap_or_else(|e| panic!("{e}"));
    let mut g = c.benchmark_group("launch_4k");
    g.sample_size(30)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    g.throughput(Throughput::Elements(100));
    g.bench_function("prepared_x100", |b| {
        b.iter(|| {
            for _ in 0..100 {
                probe.prepared().unwrap();
            }
            s.synchronize().unwrap();
        })
    });
    g.bench_function("oneshot_x100", |b| {
        b.iter(|| {
            for _ in 0..100 {
                probe.oneshot().unwrap();
            }
            s.synchronize().unwrap();
        })
    });
    g.throughput(Throughput::Elements(1));
    g.bench_function("first_result", |b| {
        b.iter(|| {
            probe.oneshot().unwrap();
            s.synchronize().unwrap();
        })
    });
    g.finish();
}

criterion_group!(benches, cases_1m, launch_4k);
criterion_main!(benches);
