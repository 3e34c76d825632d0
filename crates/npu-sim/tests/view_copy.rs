//! ViewCopy through the C ABI (`aclnnViewCopy`, ops.md §34): every dtype
//! against cpu-ref bit for bit, views in and out, dst_out being dst itself
//! or sharing src's memory, the metadata read from device tensors of
//! INT32 or INT64, the first phase's order and codes, empty tensors,
//! products and device faults.

mod common;

use cann_sys::*;
use common::*;
use cpu_ref::{DType, Family, Op, Tensor, Window};
use serial_test::serial;

const SOC: &str = "Ascend910B3";

fn rand_tensor(d: DType, shape: &[usize], seed: u64) -> Tensor {
    let n: usize = shape.iter().product();
    Tensor::from_bytes(d, shape, data(d, n, seed)).unwrap()
}

/// The six metadata tensors of two windows, on the device, as INT64 or
/// INT32.
struct Meta([Dev; 6]);

impl Meta {
    fn new(dw: Window<'_>, sw: Window<'_>, wide: bool) -> Meta {
        let t = |v: &[i64]| {
            let x = if wide {
                Tensor::from_slice(&[v.len()], v).unwrap()
            } else {
                let n: Vec<i32> = v.iter().map(|&x| x as i32).collect();
                Tensor::from_slice(&[n.len()], &n).unwrap()
            };
            upload(&x)
        };
        Meta([
            t(dw.size),
            t(dw.stride),
            t(&[dw.offset]),
            t(sw.size),
            t(sw.stride),
            t(&[sw.offset]),
        ])
    }

    fn t(&self) -> [&T; 6] {
        [
            &self.0[0].t,
            &self.0[1].t,
            &self.0[2].t,
            &self.0[3].t,
            &self.0[4].t,
            &self.0[5].t,
        ]
    }
}

fn first(dst: &T, m: [&T; 6], src: &T, out: &T) -> Result<Planned, (i32, String)> {
    let op = view_copy_op();
    // SAFETY: handles live (or null), valid out-pointers.
    plan(|w, e| unsafe {
        (op.get_workspace_size)(
            dst.0, m[0].0, m[1].0, m[2].0, src.0, m[3].0, m[4].0, m[5].0, out.0, w, e,
        )
    })
}

fn run(p: &Planned, s: &Stream) {
    let ws = Buf::new(p.ws.max(1) as usize);
    // SAFETY: a fresh executor and a workspace of the asked size.
    assert_eq!(unsafe { (view_copy_op().run)(ws.ptr, p.ws, p.ex, s.0) }, 0);
    assert_eq!(s.sync(), ACL_SUCCESS);
}

fn w<'a>(size: &'a [i64], stride: &'a [i64], offset: i64) -> Window<'a> {
    Window {
        size,
        stride,
        offset,
    }
}

#[test]
#[serial]
fn every_dtype_matches_cpu_ref_through_views() {
    leak_checked(|| {
        let s = Stream::new();
        let mut seed = 3400;
        for &d in cpu_ref::supported_dtypes(Op::ViewCopy, Family::A2) {
            for (dw, sw) in [
                (w(&[2, 2], &[5, 1], 1), w(&[2, 2], &[2, 1], 0)),
                (w(&[3, 4], &[20, 1], 7), w(&[3, 4], &[0, 3], 2)),
                (w(&[4], &[15], 0), w(&[4], &[1], 56)),
                (w(&[2, 3, 2], &[1, 2, 30], 0), w(&[2, 3, 2], &[30, 5, 1], 0)),
                (w(&[0, 3], &[1, 1], 0), w(&[0, 3], &[1, 1], 0)),
            ] {
                for (contiguous, wide) in [(true, true), (false, false)] {
                    seed += 1;
                    // dst and src: [3, 4, 5] seen through a transpose.
                    let mk = |seed| {
                        let base = rand_tensor(d, &[4, 3, 5], seed);
                        if contiguous {
                            base
                        } else {
                            base.view(&[3, 4, 5], &[5, 15, 1], 0).unwrap()
                        }
                    };
                    let (dst, src) = (mk(seed), mk(seed + 1000));
                    let want = cpu_ref::view_copy(SOC, &dst, dw, &src, sw).unwrap();
                    let (gd, gs) = (upload(&dst), upload(&src));
                    let out = output(d, want.shape());
                    let m = Meta::new(dw, sw, wide);
                    let p = first(&gd.t, m.t(), &gs.t, &out.t).unwrap();
                    run(&p, &s);
                    assert_eq!(out.buf.read(), want.contiguous_bytes(), "{d} {dw:?}");
                    // In place: dst_out is dst itself.
                    let p = first(&gd.t, m.t(), &gs.t, &gd.t).unwrap();
                    run(&p, &s);
                    let back = Tensor::from_bytes(d, &[4, 3, 5], gd.buf.read()).unwrap();
                    let back = if contiguous {
                        back
                    } else {
                        back.view(&[3, 4, 5], &[5, 15, 1], 0).unwrap()
                    };
                    assert_eq!(
                        back.contiguous_bytes(),
                        want.contiguous_bytes(),
                        "{d} in place"
                    );
                }
            }
        }
    });
}

#[test]
#[serial]
fn dst_out_sharing_src_and_strided_dst_out() {
    leak_checked(|| {
        let s = Stream::new();
        // src is dst's (and dst_out's) own buffer: shifting a row by one.
        let x = rand_tensor(DType::Int32, &[4, 4], 9);
        let (dw, sw) = (w(&[3, 4], &[4, 1], 4), w(&[3, 4], &[4, 1], 0));
        let want = cpu_ref::view_copy(SOC, &x, dw, &x, sw).unwrap();
        let g = upload(&x);
        let m = Meta::new(dw, sw, true);
        let p = first(&g.t, m.t(), &g.t, &g.t).unwrap();
        assert!(p.ws >= 64, "staged: {}", p.ws);
        run(&p, &s);
        assert_eq!(g.buf.read(), want.contiguous_bytes());
        // dst_out a transposed view of a fresh buffer.
        let dst = rand_tensor(DType::Float32, &[3, 4], 10);
        let src = rand_tensor(DType::Float32, &[6], 11);
        let (dw, sw) = (w(&[2, 2], &[4, 1], 1), w(&[2, 2], &[2, 1], 0));
        let want = cpu_ref::view_copy(SOC, &dst, dw, &src, sw).unwrap();
        let (gd, gs) = (upload(&dst), upload(&src));
        let ob = Buf::new(48);
        let o = view(aclDataType::ACL_FLOAT, &[3, 4], &[1, 3], 0, ob.ptr, 12);
        let m = Meta::new(dw, sw, false);
        let p = first(&gd.t, m.t(), &gs.t, &o).unwrap();
        run(&p, &s);
        let got = Tensor::from_bytes(DType::Float32, &[4, 3], ob.read())
            .unwrap()
            .view(&[3, 4], &[1, 3], 0)
            .unwrap();
        assert_eq!(got.contiguous_bytes(), want.contiguous_bytes());
    });
}

#[test]
#[serial]
fn first_phase_errors_in_order_empty_products_and_faults() {
    leak_checked(|| {
        let buf = Buf::new(4096);
        let null = T(std::ptr::null_mut());
        let f = |d: aclDataType, shape: &[i64]| dense(d, shape, &buf);
        let (x, y) = (
            f(aclDataType::ACL_FLOAT, &[3, 4]),
            f(aclDataType::ACL_FLOAT, &[3, 4]),
        );
        let m = Meta::new(w(&[2], &[1], 0), w(&[2], &[1], 0), true);
        let mt = m.t();
        // Nulls, in argument order.
        let names = [
            "dst",
            "dst_size",
            "dst_stride",
            "dst_storage_offset",
            "src",
            "src_size",
            "src_stride",
            "src_storage_offset",
            "dst_out",
        ];
        for (k, name) in names.iter().enumerate() {
            let mut a: [&T; 9] = [&x, mt[0], mt[1], mt[2], &y, mt[3], mt[4], mt[5], &x];
            a[k] = &null;
            for later in a.iter_mut().skip(k + 1) {
                *later = &null;
            }
            let e = first(a[0], [a[1], a[2], a[3], a[5], a[6], a[7]], a[4], a[8]).unwrap_err();
            assert!(
                e.0 == ACLNN_ERR_PARAM_NULLPTR && e.1.contains(name),
                "{name}: {}",
                e.1
            );
        }
        let invalid = |r: Result<Planned, (i32, String)>, what: &str| {
            let e = r.unwrap_err();
            assert!(
                e.0 == ACLNN_ERR_PARAM_INVALID && e.1.contains(what),
                "{what}: {}",
                e.1
            );
        };
        let dx = f(aclDataType::ACL_DOUBLE, &[3, 4]);
        invalid(first(&dx, mt, &dx, &dx), "not supported");
        invalid(
            first(&x, mt, &f(aclDataType::ACL_INT32, &[3, 4]), &x),
            "one data type",
        );
        // A metadata dtype outside INT32/INT64, or the six differing.
        let fm = upload(&Tensor::from_slice(&[1], &[2f32]).unwrap());
        invalid(
            first(&x, [&fm.t, mt[1], mt[2], mt[3], mt[4], mt[5]], &y, &x),
            "INT32 or INT64",
        );
        let m32 = Meta::new(w(&[2], &[1], 0), w(&[2], &[1], 0), false);
        invalid(
            first(&x, [mt[0], m32.t()[1], mt[2], mt[3], mt[4], mt[5]], &y, &x),
            "one data type",
        );
        invalid(
            first(&x, mt, &y, &f(aclDataType::ACL_FLOAT, &[4, 3])),
            "must be dst's",
        );
        // The metadata's lengths.
        for (dw, sw, what) in [
            (w(&[], &[], 0), w(&[], &[], 0), "dst_size holds 0"),
            (
                w(&[1; 9], &[1; 9], 0),
                w(&[1; 9], &[1; 9], 0),
                "dst_size holds 9",
            ),
            (w(&[2], &[1, 1], 0), w(&[2], &[1], 0), "dst_stride holds 2"),
            (w(&[2], &[1], 0), w(&[2, 1], &[1], 0), "src_size holds 2"),
            (w(&[2], &[1], 0), w(&[2], &[], 0), "src_stride holds 0"),
        ] {
            let m = Meta::new(dw, sw, true);
            invalid(first(&x, m.t(), &y, &x), what);
        }
        // An offset tensor of two elements.
        let two = upload(&Tensor::from_slice(&[2], &[0i64, 0]).unwrap());
        invalid(
            first(&x, [mt[0], mt[1], &two.t, mt[3], mt[4], mt[5]], &y, &x),
            "dst_storage_offset holds 2",
        );
        // The project's rules, after the metadata is read.
        for (dw, sw, what) in [
            (
                w(&[-2], &[1], 0),
                w(&[-2], &[1], 0),
                "dst_size holds the negative",
            ),
            (
                w(&[2], &[-1], 0),
                w(&[2], &[1], 0),
                "dst_stride holds the negative",
            ),
            (
                w(&[2], &[1], -1),
                w(&[2], &[1], 0),
                "dst_storage_offset holds the negative",
            ),
            (
                w(&[2], &[1], 0),
                w(&[2], &[1], -3),
                "src_storage_offset holds the negative",
            ),
            (w(&[2], &[1], 0), w(&[3], &[1], 0), "no broadcasting"),
            (w(&[2], &[12], 0), w(&[2], &[1], 0), "dst window"),
            (w(&[2], &[1], 11), w(&[2], &[1], 0), "dst window"),
            (w(&[2], &[1], 0), w(&[2], &[1], 11), "src window"),
            (
                w(&[i64::MAX; 8], &[i64::MAX; 8], 0),
                w(&[i64::MAX; 8], &[1; 8], 0),
                "dst window",
            ),
            (w(&[2, 2], &[1, 1], 0), w(&[2, 2], &[2, 1], 0), "twice"),
            (w(&[i64::MAX], &[0], 0), w(&[i64::MAX], &[0], 0), "twice"),
        ] {
            let m = Meta::new(dw, sw, true);
            invalid(first(&x, m.t(), &y, &x), what);
        }
        let twice = view(aclDataType::ACL_FLOAT, &[3, 4], &[0, 1], 0, buf.ptr, 4);
        invalid(first(&x, mt, &y, &twice), "twice");
        // Empty tensors: no metadata read (bad values pass), no work.
        let e = f(aclDataType::ACL_FLOAT, &[0, 4]);
        let bad = Meta::new(w(&[5], &[-1], -9), w(&[5], &[1], 99), true);
        let p = first(&e, bad.t(), &y, &e).unwrap();
        assert_eq!(p.ws, 0);
        let s = Stream::new();
        assert_eq!(launch(view_copy_op().run, &p, s.0), ACL_SUCCESS);
        // Metadata that is not device memory: ACLNN_ERR_INNER.
        // (32-byte aligned host memory, so only the read can fail.)
        let host = [2i64; 8];
        let at = (host.as_ptr() as usize + 31) & !31;
        let hz = view(aclDataType::ACL_INT64, &[1], &[1], 0, at as *mut _, 1);
        let e = first(&x, [&hz, mt[1], mt[2], mt[3], mt[4], mt[5]], &y, &x).unwrap_err();
        assert_eq!(e.0, ACLNN_ERR_INNER, "{}", e.1);
        // A view past its allocation faults at sync, writing nothing.
        let small = Buf::new(64);
        let big = view(
            aclDataType::ACL_FLOAT,
            &[256, 256],
            &[256, 1],
            0,
            small.ptr,
            1 << 16,
        );
        let ob = Buf::new(1 << 18);
        let o2 = dense(aclDataType::ACL_FLOAT, &[256, 256], &ob);
        let m = Meta::new(w(&[4], &[1], 0), w(&[4], &[1], 0), true);
        let p = first(&big, m.t(), &big, &o2).unwrap();
        let ws = Buf::new(p.ws.max(1) as usize);
        // SAFETY: a fresh executor and a workspace of the asked size.
        assert_eq!(unsafe { (view_copy_op().run)(ws.ptr, p.ws, p.ex, s.0) }, 0);
        assert_eq!(s.sync(), ACL_ERROR_RT_AICORE_TRAP_READ_OVERFLOW);
        assert_eq!(ob.read(), vec![0u8; 1 << 18], "nothing was written");
    });
    for soc in ["Ascend910A", "Ascend910_9391", "Ascend310P3"] {
        reinit(soc);
        let buf = Buf::new(256);
        let x = dense(aclDataType::ACL_FLOAT, &[2], &buf);
        let m = Meta::new(w(&[1], &[1], 0), w(&[1], &[1], 0), true);
        assert_eq!(
            first(&x, m.t(), &x, &x).unwrap_err().0,
            ACLNN_ERR_INNER_FIND_KERNEL_ERROR
        );
    }
    reinit(SOC);
}

/// Found by a review: a repeatable in-place executor (dst_out is dst) was
/// refused at every launch as "rebound into overlap", and rebinding dst_out
/// apart from dst must copy the base again.
#[test]
#[serial]
fn a_repeatable_in_place_executor_runs_and_rebinds() {
    leak_checked(|| {
        let s = Stream::new();
        let dst = rand_tensor(DType::Float32, &[3, 4], 61);
        let src = rand_tensor(DType::Float32, &[6], 62);
        let (dw, sw) = (w(&[2, 2], &[4, 1], 1), w(&[2, 2], &[2, 1], 0));
        let want = cpu_ref::view_copy(SOC, &dst, dw, &src, sw).unwrap();
        let (gd, gs) = (upload(&dst), upload(&src));
        let m = Meta::new(dw, sw, true);
        let p = first(&gd.t, m.t(), &gs.t, &gd.t).unwrap();
        // SAFETY: a live executor, right after its first phase.
        assert_eq!(
            unsafe { (api().aclSetAclOpExecutorRepeatable.unwrap())(p.ex) },
            0
        );
        assert_eq!(launch(view_copy_op().run, &p, s.0), ACL_SUCCESS);
        assert_eq!(s.sync(), ACL_SUCCESS);
        assert_eq!(gd.buf.read(), want.contiguous_bytes());
        // dst_out rebound to a buffer of its own: the base is copied again.
        let fresh = Buf::from(&[0u8; 48]);
        // SAFETY: live executor and handle; a buffer of the planned size.
        assert_eq!(
            unsafe { (api().aclSetOutputTensorAddr.unwrap())(p.ex, 0, gd.t.0, fresh.ptr) },
            0
        );
        assert_eq!(launch(view_copy_op().run, &p, s.0), ACL_SUCCESS);
        assert_eq!(s.sync(), ACL_SUCCESS);
        assert_eq!(fresh.read(), want.contiguous_bytes());
        // SAFETY: a repeatable executor, destroyed once.
        assert_eq!(unsafe { (api().aclDestroyAclOpExecutor.unwrap())(p.ex) }, 0);
    });
}

/// Found by a review: tensors whose shapes claim 2^40 elements over a few
/// bytes (stride 0) and a window of 2^40 positions: refused at once, not
/// enumerated; an empty src writes nothing into a separate dst_out (CANN
/// returns before any work).
#[test]
#[serial]
fn hostile_windows_are_refused_quickly_and_an_empty_src_writes_nothing() {
    leak_checked(|| {
        let buf = Buf::new(64);
        let huge = view(aclDataType::ACL_INT8, &[1 << 40], &[0], 0, buf.ptr, 1);
        let m = Meta::new(
            w(&[1 << 20, 1 << 20], &[1, 1], 0),
            w(&[1 << 20, 1 << 20], &[1, 1], 0),
            true,
        );
        let t0 = std::time::Instant::now();
        let e = first(&huge, m.t(), &huge, &huge).unwrap_err();
        assert!(
            e.0 == ACLNN_ERR_PARAM_INVALID && e.1.contains("twice"),
            "{}",
            e.1
        );
        // Interleaved windows past the enumeration bound are refused too.
        let m = Meta::new(
            w(&[2, 1 << 22], &[4, 3], 0),
            w(&[2, 1 << 22], &[0, 0], 0),
            true,
        );
        let e = first(&huge, m.t(), &huge, &huge).unwrap_err();
        assert!(
            e.0 == ACLNN_ERR_PARAM_INVALID && e.1.contains("interleaves"),
            "{}",
            e.1
        );
        assert!(t0.elapsed().as_secs() < 5, "{:?}", t0.elapsed());
        // An empty src: dst_out keeps its bytes.
        let s = Stream::new();
        let dst = rand_tensor(DType::Float32, &[4], 63);
        let gd = upload(&dst);
        let es = output(DType::Float32, &[0]);
        let out = output(DType::Float32, &[4]);
        let m = Meta::new(w(&[1], &[1], 0), w(&[1], &[1], 0), true);
        let p = first(&gd.t, m.t(), &es.t, &out.t).unwrap();
        assert_eq!(p.ws, 0);
        assert_eq!(launch(view_copy_op().run, &p, s.0), ACL_SUCCESS);
        assert_eq!(s.sync(), ACL_SUCCESS);
        assert_eq!(out.buf.read(), vec![0u8; 16]);
    });
}
