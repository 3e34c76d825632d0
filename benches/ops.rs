//! The safe layer's launch path against memcpy of the same bytes, on the
//! embedded simulator: slice of 32 MiB, one-element launches (plain,
//! `_into`, prepared) and a sampled slice.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use npu_ops::{Backend, DType, Runtime, SampleMode, SampledSlice, Tensor};
use std::hint::black_box;

fn bench(c: &mut Criterion) {
    let rt = Runtime::new(Backend::Simulator).unwrap();
    let s = rt.stream().unwrap();
    let (rows, cols) = (4096usize, 2048usize);
    let bytes = rows * cols * 4;
    let x = Tensor::from_slice(&s, &[rows, cols], &vec![1f32; rows * cols]).unwrap();
    let out = Tensor::empty(&s, DType::F32, &[rows, cols]).unwrap();
    let mut g = c.benchmark_group("npu-ops");
    g.sample_size(20);
    g.throughput(Throughput::Bytes(bytes as u64));
    let src = vec![1u8; bytes];
    let mut dst = vec![0u8; bytes];
    g.bench_function("host memcpy 32MiB", |b| {
        b.iter(|| dst.copy_from_slice(black_box(&src)))
    });
    g.bench_function("slice_into 32MiB + sync", |b| {
        b.iter(|| {
            s.slice_into(&x, 0, 0, rows as i64, 1, &out).unwrap();
            s.synchronize().unwrap();
        })
    });
    let p = SampledSlice::new(
        &[-64, 0],
        &[rows as i64, cols as i64],
        &[1, 1],
        SampleMode::Wrap,
    );
    g.bench_function("sampled_slice wrap 32MiB + sync", |b| {
        b.iter(|| {
            black_box(s.sampled_slice(&x, &p).unwrap());
            s.synchronize().unwrap();
        })
    });
    g.throughput(Throughput::Elements(1));
    let x1 = x.narrow(0, 0, 1).unwrap().narrow(1, 0, 1).unwrap();
    let o1 = Tensor::empty(&s, DType::F32, &[1, 1]).unwrap();
    g.bench_function("slice_into 1 element + sync", |b| {
        b.iter(|| {
            s.slice_into(&x1, 0, 0, 1, 1, &o1).unwrap();
            s.synchronize().unwrap();
        })
    });
    let prep = s.prepare_slice(&x1, 0, 0, 1, 1, &o1).unwrap();
    g.bench_function("prepared slice 1 element + sync", |b| {
        b.iter(|| {
            prep.run(&x1, &o1).unwrap();
            s.synchronize().unwrap();
        })
    });
    g.bench_function("slice_into 1 element, 100 queued then sync", |b| {
        b.iter(|| {
            for _ in 0..100 {
                s.slice_into(&x1, 0, 0, 1, 1, &o1).unwrap();
            }
            s.synchronize().unwrap();
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
