//! The simulator's launch path and kernels against `memcpy` of the same
//! bytes: Slice (contiguous rows, and a strided step), IndexSelect (row
//! gather), InplaceCopy of a transposed view, each through both phases and
//! a stream synchronisation, as a caller of the C ABI pays for them.

use cann_sys::*;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::ffi::c_void;
use std::hint::black_box;
use std::ptr::null_mut;

const ROWS: i64 = 4096;
const COLS: i64 = 2048; // 32 MiB of f32

struct Ctx {
    api: Api,
    stream: aclrtStream,
}

fn ctx() -> Ctx {
    let api = npu_sim::api();
    let mut stream = null_mut();
    // SAFETY: plain C calls with valid out-pointers.
    unsafe {
        assert_eq!((api.aclInit)(std::ptr::null()), 0);
        assert_eq!((api.aclrtSetDevice)(0), 0);
        assert_eq!((api.aclrtCreateStream)(&mut stream), 0);
    }
    Ctx { api, stream }
}

impl Ctx {
    fn malloc(&self, n: usize) -> *mut c_void {
        let mut p = null_mut();
        // SAFETY: valid out-pointer.
        assert_eq!(
            unsafe {
                (self.api.aclrtMalloc)(&mut p, n, aclrtMemMallocPolicy::ACL_MEM_MALLOC_HUGE_FIRST)
            },
            0
        );
        // SAFETY: fresh allocation of n bytes.
        assert_eq!(unsafe { (self.api.aclrtMemset)(p, n, 1, n) }, 0);
        p
    }

    fn tensor(
        &self,
        dtype: aclDataType,
        shape: &[i64],
        strides: &[i64],
        base: *mut c_void,
        storage: i64,
    ) -> *mut aclTensor {
        // SAFETY: arrays valid for their lengths.
        unsafe {
            (self.api.aclCreateTensor)(
                shape.as_ptr(),
                shape.len() as u64,
                dtype,
                strides.as_ptr(),
                0,
                aclFormat::ACL_FORMAT_ND,
                [storage].as_ptr(),
                1,
                base,
            )
        }
    }

    /// Second phase with no workspace, then synchronise.
    fn run(&self, run: fns::OpRun, ws: u64, ex: *mut aclOpExecutor) {
        assert_eq!(ws, 0);
        // SAFETY: a fresh executor that needs no workspace.
        unsafe {
            assert_eq!(run(null_mut(), 0, ex, self.stream), 0);
            assert_eq!((self.api.aclrtSynchronizeStream)(self.stream), 0);
        }
    }
}

fn bench(c: &mut Criterion) {
    let cx = ctx();
    let f32t = aclDataType::ACL_FLOAT;
    let bytes = (ROWS * COLS * 4) as usize;
    let x = cx.malloc(bytes);
    let out = cx.malloc(bytes);
    let tx = cx.tensor(f32t, &[ROWS, COLS], &[COLS, 1], x, ROWS * COLS);
    let mut g = c.benchmark_group("sim");
    g.sample_size(20);
    g.throughput(Throughput::Bytes(bytes as u64));

    let src = vec![1u8; bytes];
    let mut dst = vec![0u8; bytes];
    g.bench_function(BenchmarkId::new("host memcpy", "32MiB"), |b| {
        b.iter(|| {
            dst.copy_from_slice(black_box(&src));
            black_box(&dst);
        })
    });

    let slice = cx.api.slice().unwrap();
    let to = cx.tensor(f32t, &[ROWS, COLS], &[COLS, 1], out, ROWS * COLS);
    g.bench_function(BenchmarkId::new("Slice all rows", "32MiB"), |b| {
        b.iter(|| {
            let (mut ws, mut ex) = (0, null_mut());
            // SAFETY: live tensors, valid out-pointers.
            assert_eq!(
                unsafe { (slice.get_workspace_size)(tx, 0, 0, ROWS, 1, to, &mut ws, &mut ex) },
                0
            );
            cx.run(slice.run, ws, ex);
        })
    });

    // Every other column: half the bytes, element-wise strided reads.
    let th = cx.tensor(
        f32t,
        &[ROWS, COLS / 2],
        &[COLS / 2, 1],
        out,
        ROWS * COLS / 2,
    );
    g.throughput(Throughput::Bytes(bytes as u64 / 2));
    g.bench_function(
        BenchmarkId::new("Slice step 2 (inner dim)", "16MiB out"),
        |b| {
            b.iter(|| {
                let (mut ws, mut ex) = (0, null_mut());
                // SAFETY: as above.
                assert_eq!(
                    unsafe { (slice.get_workspace_size)(tx, 1, 0, COLS, 2, th, &mut ws, &mut ex) },
                    0
                );
                cx.run(slice.run, ws, ex);
            })
        },
    );

    // Gather every row in reverse order.
    let idx: Vec<u8> = (0..ROWS).rev().flat_map(|i| i.to_le_bytes()).collect();
    let ib = cx.malloc(idx.len());
    // SAFETY: host slice valid, device allocation of that size.
    assert_eq!(
        unsafe {
            (cx.api.aclrtMemcpy)(
                ib,
                idx.len(),
                idx.as_ptr().cast(),
                idx.len(),
                aclrtMemcpyKind::ACL_MEMCPY_HOST_TO_DEVICE,
            )
        },
        0
    );
    let ti = cx.tensor(aclDataType::ACL_INT64, &[ROWS], &[1], ib, ROWS);
    let isel = cx.api.index_select().unwrap();
    g.throughput(Throughput::Bytes(bytes as u64));
    g.bench_function(
        BenchmarkId::new("IndexSelect rows reversed", "32MiB"),
        |b| {
            b.iter(|| {
                let (mut ws, mut ex) = (0, null_mut());
                // SAFETY: as above.
                assert_eq!(
                    unsafe { (isel.get_workspace_size)(tx, 0, ti, to, &mut ws, &mut ex) },
                    0
                );
                cx.run(isel.run, ws, ex);
            })
        },
    );

    // Materialise a transposed view.
    let tt = cx.tensor(f32t, &[COLS, ROWS], &[1, COLS], x, ROWS * COLS);
    let tot = cx.tensor(f32t, &[COLS, ROWS], &[ROWS, 1], out, ROWS * COLS);
    let copy = cx.api.inplace_copy().unwrap();
    g.bench_function(BenchmarkId::new("InplaceCopy transpose", "32MiB"), |b| {
        b.iter(|| {
            let (mut ws, mut ex) = (0, null_mut());
            // SAFETY: as above.
            assert_eq!(
                unsafe { (copy.get_workspace_size)(tot, tt, &mut ws, &mut ex) },
                0
            );
            cx.run(copy.run, ws, ex);
        })
    });

    // The fixed cost of a launch: a 1-element slice.
    let t1 = cx.tensor(f32t, &[1, 1], &[1, 1], out, 1);
    let x1 = cx.tensor(f32t, &[1, 1], &[1, 1], x, 1);
    g.throughput(Throughput::Elements(1));
    g.bench_function("launch + sync, 1 element", |b| {
        b.iter(|| {
            let (mut ws, mut ex) = (0, null_mut());
            // SAFETY: as above.
            assert_eq!(
                unsafe { (slice.get_workspace_size)(x1, 0, 0, 1, 1, t1, &mut ws, &mut ex) },
                0
            );
            cx.run(slice.run, ws, ex);
        })
    });
    g.bench_function("first phase only, 1 element", |b| {
        b.iter(|| {
            let (mut ws, mut ex) = (0, null_mut());
            // SAFETY: as above; the executor is destroyed unrun.
            unsafe {
                assert_eq!(
                    (slice.get_workspace_size)(x1, 0, 0, 1, 1, t1, &mut ws, &mut ex),
                    0
                );
                assert_eq!((cx.api.aclDestroyAclOpExecutor.unwrap())(ex), 0);
            }
        })
    });
    g.bench_function("empty stream sync", |b| {
        // SAFETY: a live stream.
        b.iter(|| assert_eq!(unsafe { (cx.api.aclrtSynchronizeStream)(cx.stream) }, 0))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
