//! aclnnGatherV2 through the C ABI: every dtype against cpu-ref, index
//! tensors of several ranks and dtypes along every dim, views in and out,
//! an index out of range (a device fault), the first phase's order and
//! codes, 0-D and empty tensors and products.

mod common;

use cann_sys::*;
use common::*;
use cpu_ref::{DType, Family, Op, Tensor};
use serial_test::serial;

const SOC: &str = "Ascend910B3";

/// Tensors in 1 KiB slots of one buffer of their own, so that none meets
/// another (an `out` over a gather's inputs is refused, ops.md §2).
struct Slots {
    buf: Buf,
    next: std::cell::Cell<usize>,
}

impl Slots {
    fn new() -> Slots {
        Slots {
            buf: Buf::new(64 << 10),
            next: std::cell::Cell::new(0),
        }
    }

    /// A contiguous tensor of `shape` in the next slot.
    fn t(&self, d: aclDataType, shape: &[i64]) -> T {
        let k = self.next.get();
        assert!(k < 64, "out of slots");
        self.next.set(k + 1);
        let base = self.buf.ptr.cast::<u8>().wrapping_add(k << 10).cast();
        let n = shape.iter().product::<i64>().max(1);
        view(d, shape, &contiguous_strides(shape), 0, base, n)
    }
}

fn rand_tensor(d: DType, shape: &[usize], seed: u64) -> Tensor {
    let n: usize = shape.iter().product();
    Tensor::from_bytes(d, shape, data(d, n, seed)).unwrap()
}

fn first(x: &T, dim: i64, i: &T, o: &T) -> Result<Planned, (i32, String)> {
    let op = api().gather_v2().unwrap();
    // SAFETY: handles live (or null), valid out-pointers.
    plan(|ws, ex| unsafe { (op.get_workspace_size)(x.0, dim, i.0, o.0, ws, ex) })
}

fn run(x: &T, dim: i64, i: &T, o: &T, s: &Stream) -> Result<(), (&'static str, i32, String)> {
    let op = api().gather_v2().unwrap();
    // SAFETY: live handles, valid out-pointers.
    exec(
        |ws, ex| unsafe { (op.get_workspace_size)(x.0, dim, i.0, o.0, ws, ex) },
        op.run,
        s,
    )
}

#[test]
#[serial]
fn every_dtype_matches_cpu_ref_through_views() {
    leak_checked(|| {
        let s = Stream::new();
        let mut seed = 11;
        for &d in cpu_ref::supported_dtypes(Op::GatherV2, Family::A2) {
            seed += 1;
            // self: a transposed [4, 3] view of a [3, 4] buffer.
            let x = rand_tensor(d, &[3, 4], seed)
                .view(&[4, 3], &[1, 4], 0)
                .unwrap();
            let gx = upload(&x);
            // index: int32 [2, 2] (repeats) along dim 1 -> out [4, 2, 2].
            let idx = Tensor::from_slice(&[2, 2], &[2i32, 0, 2, 1]).unwrap();
            let want = cpu_ref::gather_v2(SOC, &x, 1, &idx).unwrap();
            let gi = upload(&idx);
            let out = output(d, &[4, 2, 2]);
            run(&gx.t, 1, &gi.t, &out.t, &s).unwrap();
            assert_eq!(out.buf.read(), want.contiguous_bytes(), "{d}");
            // index: int64 0-D along dim -2 -> out [1, 3], through a
            // strided out view.
            let i0 = Tensor::from_slice(&[], &[3i64]).unwrap();
            let want = cpu_ref::gather_v2(SOC, &x, -2, &i0).unwrap();
            let gi0 = upload(&i0);
            let buf = Buf::from(&vec![0u8; 6 * d.size()]);
            let o = view(acl_dtype(d), &[1, 3], &[6, 2], 0, buf.ptr, 6);
            run(&gx.t, -2, &gi0.t, &o, &s).unwrap();
            let got = Tensor::from_bytes(d, &[6], buf.read())
                .unwrap()
                .view(&[1, 3], &[6, 2], 0)
                .unwrap();
            assert_eq!(got.contiguous_bytes(), want.contiguous_bytes(), "{d} 0-D");
        }
    });
}

#[test]
#[serial]
fn index_ranks_dims_and_a_0d_self() {
    leak_checked(|| {
        let s = Stream::new();
        let x = rand_tensor(DType::Int16, &[2, 3, 4], 3);
        let gx = upload(&x);
        for dim in -3..3i64 {
            let n = x.shape()[dim.rem_euclid(3) as usize] as i64;
            let vals: Vec<i64> = (0..6).map(|k| (k * 5 + 1) % n).collect();
            for shape in [&[6][..], &[2, 3], &[3, 1, 2]] {
                let idx = Tensor::from_slice(shape, &vals).unwrap();
                let want = cpu_ref::gather_v2(SOC, &x, dim, &idx).unwrap();
                let gi = upload(&idx);
                let out = output(DType::Int16, want.shape());
                run(&gx.t, dim, &gi.t, &out.t, &s).unwrap();
                assert_eq!(out.buf.read(), want.contiguous_bytes(), "{dim} {shape:?}");
            }
        }
        // A 0-D self: out 0-D, an index of one element.
        let x0 = Tensor::scalar(-7i32);
        let i1 = Tensor::from_slice(&[1, 1], &[0i32]).unwrap();
        let (gx0, gi1) = (upload(&x0), upload(&i1));
        let out = output(DType::Int32, &[]);
        run(&gx0.t, -1, &gi1.t, &out.t, &s).unwrap();
        assert_eq!(out.buf.read(), (-7i32).to_le_bytes());
    });
}

#[test]
#[serial]
fn first_phase_errors_in_cann_order_and_faults() {
    leak_checked(|| {
        let buf = Buf::new(4096);
        let slots = Slots::new();
        let f = |d: aclDataType, shape: &[i64]| slots.t(d, shape);
        let null = T(std::ptr::null_mut());
        let (x, i, o) = (
            f(aclDataType::ACL_FLOAT, &[4, 3]),
            f(aclDataType::ACL_INT64, &[2]),
            f(aclDataType::ACL_FLOAT, &[2, 3]),
        );
        for (k, (a, b, c)) in [(&null, &i, &o), (&x, &null, &o), (&x, &i, &null)]
            .into_iter()
            .enumerate()
        {
            let e = first(a, 0, b, c).unwrap_err();
            assert_eq!(e.0, ACLNN_ERR_PARAM_NULLPTR, "{k}");
            assert!(e.1.contains(["self", "index", "out"][k]), "{}", e.1);
        }
        // out's dtype before self's (aclnn_gather_v2.cpp).
        let e = first(&f(aclDataType::ACL_UINT16, &[4, 3]), 0, &i, &o).unwrap_err();
        assert_eq!(e.0, ACLNN_ERR_PARAM_INVALID);
        assert!(e.1.contains("differs"), "{}", e.1);
        let e = first(
            &f(aclDataType::ACL_UINT16, &[4, 3]),
            0,
            &i,
            &f(aclDataType::ACL_UINT16, &[2, 3]),
        )
        .unwrap_err();
        assert!(e.1.contains("self has data type"), "{}", e.1);
        let e = first(&x, 0, &f(aclDataType::ACL_FLOAT, &[2]), &o).unwrap_err();
        assert!(e.1.contains("INT64 or INT32"), "{}", e.1);
        let e = first(&x, 0, &f(aclDataType::ACL_INT32, &[1; 9]), &o).unwrap_err();
        assert!(e.1.contains("index has rank 9"), "{}", e.1);
        for dim in [2, -3, i64::MIN, i64::MAX] {
            let e = first(&x, dim, &i, &o).unwrap_err();
            assert_eq!(e.0, ACLNN_ERR_PARAM_INVALID);
            assert!(e.1.contains("outside"), "{}", e.1);
        }
        let e = first(&x, 1, &i, &o).unwrap_err();
        assert!(e.1.contains("must be [4, 2]"), "{}", e.1);
        // A 0-D index: extent 1 at dim.
        let i0 = f(aclDataType::ACL_INT32, &[]);
        let p = first(&x, 0, &i0, &f(aclDataType::ACL_FLOAT, &[1, 3])).unwrap();
        let s0 = Stream::new();
        assert_eq!(
            launch(api().gather_v2().unwrap().run, &p, s0.0),
            ACL_SUCCESS
        );
        drop(s0);
        // 0-D self: out 0-D, the index one element.
        let x0 = f(aclDataType::ACL_FLOAT, &[]);
        let o0 = f(aclDataType::ACL_FLOAT, &[]);
        let e = first(&x0, 1, &i, &o0).unwrap_err();
        assert!(e.1.contains("outside"), "{}", e.1);
        let e = first(&x0, 0, &i, &o0).unwrap_err();
        assert!(e.1.contains("one element"), "{}", e.1);
        // out writing one element twice.
        let o2 = view(aclDataType::ACL_FLOAT, &[2, 3], &[0, 1], 0, buf.ptr, 6);
        let e = first(&x, 0, &i, &o2).unwrap_err();
        assert!(e.1.contains("twice"), "{}", e.1);
        drop(o2);
        // An index past the end: the gather faults at synchronisation.
        let s = Stream::new();
        let xd = upload(&rand_tensor(DType::Float32, &[4, 3], 1));
        let bad = upload(&Tensor::from_slice(&[2], &[1i64, 4]).unwrap());
        let out = output(DType::Float32, &[2, 3]);
        let e = run(&xd.t, 0, &bad.t, &out.t, &s).unwrap_err();
        assert_eq!(e.0, "sync", "{e:?}");
        assert!(e.2.contains("index out of range"), "{}", e.2);
        let neg = upload(&Tensor::from_slice(&[1], &[-1i32]).unwrap());
        let out = output(DType::Float32, &[4, 1]);
        let e = run(&xd.t, 1, &neg.t, &out.t, &s).unwrap_err();
        assert_eq!(e.0, "sync", "{e:?}");
        // Empty index (and empty self): plans nothing.
        let ei = f(aclDataType::ACL_INT32, &[0, 2]);
        let eo = f(aclDataType::ACL_FLOAT, &[4, 0, 2]);
        let p = first(&x, 1, &ei, &eo).unwrap();
        assert_eq!(p.ws, 0);
        assert_eq!(launch(api().gather_v2().unwrap().run, &p, s.0), ACL_SUCCESS);
        let ex = f(aclDataType::ACL_FLOAT, &[0, 3]);
        let p = first(&ex, 1, &i, &f(aclDataType::ACL_FLOAT, &[0, 2])).unwrap();
        assert_eq!(launch(api().gather_v2().unwrap().run, &p, s.0), ACL_SUCCESS);
    });
}

#[test]
#[serial]
fn products() {
    reinit("Ascend310B1");
    let buf = Buf::new(64);
    let slots = Slots::new();
    let x = slots.t(aclDataType::ACL_FLOAT, &[2, 2]);
    let i = slots.t(aclDataType::ACL_INT64, &[1]);
    let o = slots.t(aclDataType::ACL_FLOAT, &[1, 2]);
    assert_eq!(
        first(&x, 0, &i, &o).unwrap_err().0,
        ACLNN_ERR_INNER_FIND_KERNEL_ERROR
    );
    drop((x, i, o));
    reinit("Ascend910A");
    let x = slots.t(aclDataType::ACL_BF16, &[2, 2]);
    let i = slots.t(aclDataType::ACL_INT64, &[1]);
    let o = slots.t(aclDataType::ACL_BF16, &[1, 2]);
    assert_eq!(first(&x, 0, &i, &o).unwrap_err().0, ACLNN_ERR_PARAM_INVALID);
    drop((x, i, o));
    drop(buf);
    reinit(SOC);
}

fn gfirst(x: &T, dim: i64, i: &T, o: &T) -> Result<Planned, (i32, String)> {
    let op = api().gather().unwrap();
    // SAFETY: handles live (or null), valid out-pointers.
    plan(|ws, ex| unsafe { (op.get_workspace_size)(x.0, dim, i.0, o.0, ws, ex) })
}

fn grun(x: &T, dim: i64, i: &T, o: &T, s: &Stream) -> Result<(), (&'static str, i32, String)> {
    let op = api().gather().unwrap();
    // SAFETY: live handles, valid out-pointers.
    exec(
        |ws, ex| unsafe { (op.get_workspace_size)(x.0, dim, i.0, o.0, ws, ex) },
        op.run,
        s,
    )
}

#[test]
#[serial]
fn gather_every_dtype_and_dim_matches_cpu_ref_through_views() {
    leak_checked(|| {
        let s = Stream::new();
        let mut seed = 40;
        for &d in cpu_ref::supported_dtypes(Op::Gather, Family::A2) {
            seed += 1;
            // self: a transposed [4, 3] view of a [3, 4] buffer.
            let x = rand_tensor(d, &[3, 4], seed)
                .view(&[4, 3], &[1, 4], 0)
                .unwrap();
            let gx = upload(&x);
            for dim in [0i64, 1, -1] {
                // index [3, 2]: along dim 0 values < 4, along dim 1 < 3.
                let n = if dim == 0 { 4 } else { 3 };
                let vals: Vec<i32> = (0..6).map(|k| (k * 7 + 2) % n).collect();
                let idx = Tensor::from_slice(&[3, 2], &vals).unwrap();
                let want = cpu_ref::gather(SOC, &x, dim, &idx).unwrap();
                let gi = upload(&idx);
                let out = output(d, &[3, 2]);
                grun(&gx.t, dim, &gi.t, &out.t, &s).unwrap();
                assert_eq!(out.buf.read(), want.contiguous_bytes(), "{d} dim {dim}");
            }
            // A strided int64 index and a transposed out.
            let base = Tensor::from_slice(&[2, 4], &[3i64, 9, 0, 9, 1, 9, 2, 9]).unwrap();
            let idx = base.view(&[2, 2], &[4, 2], 0).unwrap(); // [[3, 0], [1, 2]]
            let want = cpu_ref::gather(SOC, &x, 0, &idx).unwrap();
            let gi = upload(&idx);
            let buf = Buf::from(&vec![0u8; 4 * d.size()]);
            let o = view(acl_dtype(d), &[2, 2], &[1, 2], 0, buf.ptr, 4);
            grun(&gx.t, 0, &gi.t, &o, &s).unwrap();
            let got = Tensor::from_bytes(d, &[4], buf.read())
                .unwrap()
                .view(&[2, 2], &[1, 2], 0)
                .unwrap();
            assert_eq!(got.contiguous_bytes(), want.contiguous_bytes(), "{d} views");
        }
        // 0-D self and index.
        let x0 = Tensor::scalar(-3i32);
        let i3 = Tensor::from_slice(&[3], &[0i64, 0, 0]).unwrap();
        let (gx0, gi3) = (upload(&x0), upload(&i3));
        let out = output(DType::Int32, &[3]);
        grun(&gx0.t, 0, &gi3.t, &out.t, &s).unwrap();
        assert_eq!(
            out.buf.read(),
            cpu_ref::gather(SOC, &x0, 0, &i3)
                .unwrap()
                .contiguous_bytes()
        );
        let x4 = rand_tensor(DType::Int16, &[4], 3);
        let i0 = Tensor::from_slice(&[], &[2i32]).unwrap();
        let (gx4, gi0) = (upload(&x4), upload(&i0));
        let out = output(DType::Int16, &[]);
        grun(&gx4.t, -1, &gi0.t, &out.t, &s).unwrap();
        assert_eq!(
            out.buf.read(),
            cpu_ref::gather(SOC, &x4, -1, &i0)
                .unwrap()
                .contiguous_bytes()
        );
    });
}

#[test]
#[serial]
fn gather_first_phase_errors_in_cann_order_and_faults() {
    leak_checked(|| {
        let buf = Buf::new(4096);
        let slots = Slots::new();
        let f = |d: aclDataType, shape: &[i64]| slots.t(d, shape);
        let null = T(std::ptr::null_mut());
        let (x, i, o) = (
            f(aclDataType::ACL_FLOAT, &[4, 3]),
            f(aclDataType::ACL_INT64, &[2, 3]),
            f(aclDataType::ACL_FLOAT, &[2, 3]),
        );
        for (k, (a, b, c)) in [(&null, &i, &o), (&x, &null, &o), (&x, &i, &null)]
            .into_iter()
            .enumerate()
        {
            let e = gfirst(a, 0, b, c).unwrap_err();
            assert_eq!(e.0, ACLNN_ERR_PARAM_NULLPTR, "{k}");
            assert!(e.1.contains(["self", "index", "out"][k]), "{}", e.1);
        }
        // self's dtype before the index's and out's.
        let e = gfirst(
            &f(aclDataType::ACL_COMPLEX64, &[4, 3]),
            0,
            &f(aclDataType::ACL_FLOAT, &[2, 3]),
            &o,
        )
        .unwrap_err();
        assert_eq!(e.0, ACLNN_ERR_PARAM_INVALID);
        assert!(e.1.contains("self has data type"), "{}", e.1);
        let e = gfirst(
            &x,
            0,
            &f(aclDataType::ACL_FLOAT, &[2, 3]),
            &f(aclDataType::ACL_INT32, &[2, 3]),
        )
        .unwrap_err();
        assert!(e.1.contains("INT64 or INT32"), "{}", e.1);
        let e = gfirst(&x, 0, &i, &f(aclDataType::ACL_INT32, &[2, 3])).unwrap_err();
        assert!(e.1.contains("differs"), "{}", e.1);
        let e = gfirst(
            &x,
            0,
            &f(aclDataType::ACL_INT64, &[6]),
            &f(aclDataType::ACL_FLOAT, &[6]),
        )
        .unwrap_err();
        assert!(e.1.contains("the same"), "{}", e.1);
        let e = gfirst(&x, 0, &i, &f(aclDataType::ACL_FLOAT, &[3, 2])).unwrap_err();
        assert!(e.1.contains("must be index's"), "{}", e.1);
        for dim in [2, -3, i64::MIN, i64::MAX] {
            let e = gfirst(&x, dim, &i, &o).unwrap_err();
            assert!(e.1.contains("outside"), "{}", e.1);
        }
        let e = gfirst(
            &x,
            0,
            &f(aclDataType::ACL_INT64, &[2, 4]),
            &f(aclDataType::ACL_FLOAT, &[2, 4]),
        )
        .unwrap_err();
        assert!(e.1.contains("larger than self's"), "{}", e.1);
        // Along dim the index may be longer than self.
        let p = gfirst(
            &x,
            1,
            &f(aclDataType::ACL_INT64, &[2, 7]),
            &f(aclDataType::ACL_FLOAT, &[2, 7]),
        )
        .unwrap();
        let s = Stream::new();
        assert_eq!(launch(api().gather().unwrap().run, &p, s.0), ACL_SUCCESS);
        let e = gfirst(&f(aclDataType::ACL_FLOAT, &[0, 3]), 0, &i, &o).unwrap_err();
        assert!(e.1.contains("no element"), "{}", e.1);
        // An empty index: any dtype, nothing planned.
        let ef = f(aclDataType::ACL_FLOAT, &[0, 3]);
        let p = gfirst(&x, 0, &ef, &f(aclDataType::ACL_FLOAT, &[0, 3])).unwrap();
        assert_eq!(p.ws, 0);
        assert_eq!(launch(api().gather().unwrap().run, &p, s.0), ACL_SUCCESS);
        // out writing one element twice.
        let o2 = view(aclDataType::ACL_FLOAT, &[2, 3], &[0, 1], 0, buf.ptr, 6);
        let e = gfirst(&x, 0, &i, &o2).unwrap_err();
        assert!(e.1.contains("twice"), "{}", e.1);
        drop(o2);
        // Indices out of range: the gather faults at synchronisation.
        let xd = upload(&rand_tensor(DType::Float32, &[4, 3], 1));
        for bad in [[0i64, 4], [-1, 0]] {
            let gi = upload(&Tensor::from_slice(&[1, 2], &bad).unwrap());
            let out = output(DType::Float32, &[1, 2]);
            let e = grun(&xd.t, 0, &gi.t, &out.t, &s).unwrap_err();
            assert_eq!(e.0, "sync", "{e:?}");
            assert!(e.2.contains("index out of range"), "{}", e.2);
        }
    });
}

#[test]
#[serial]
fn gather_products() {
    reinit("Ascend310B1");
    let buf = Buf::new(64);
    let slots = Slots::new();
    let x = slots.t(aclDataType::ACL_FLOAT, &[2, 2]);
    let i = slots.t(aclDataType::ACL_INT64, &[1, 2]);
    let o = slots.t(aclDataType::ACL_FLOAT, &[1, 2]);
    assert_eq!(
        gfirst(&x, 0, &i, &o).unwrap_err().0,
        ACLNN_ERR_INNER_FIND_KERNEL_ERROR
    );
    drop((x, i, o));
    reinit("Ascend310P3");
    let x = slots.t(aclDataType::ACL_UINT32, &[2, 2]);
    let i = slots.t(aclDataType::ACL_INT64, &[1, 2]);
    let o = slots.t(aclDataType::ACL_UINT32, &[1, 2]);
    let p = gfirst(&x, 0, &i, &o).unwrap();
    let s = Stream::new();
    assert_eq!(launch(api().gather().unwrap().run, &p, s.0), ACL_SUCCESS);
    drop(s);
    drop((x, i, o));
    drop(buf);
    reinit(SOC);
}

fn tfirst(x: &T, i: &T, o: &T) -> Result<Planned, (i32, String)> {
    let op = api().take().unwrap();
    // SAFETY: handles live (or null), valid out-pointers.
    plan(|ws, ex| unsafe { (op.get_workspace_size)(x.0, i.0, o.0, ws, ex) })
}

fn trun(x: &T, i: &T, o: &T, s: &Stream) -> Result<(), (&'static str, i32, String)> {
    let op = api().take().unwrap();
    // SAFETY: live handles, valid out-pointers.
    exec(
        |ws, ex| unsafe { (op.get_workspace_size)(x.0, i.0, o.0, ws, ex) },
        op.run,
        s,
    )
}

#[test]
#[serial]
fn take_every_dtype_matches_cpu_ref_through_views() {
    leak_checked(|| {
        let s = Stream::new();
        let mut seed = 70;
        for &d in cpu_ref::supported_dtypes(Op::Take, Family::A2) {
            seed += 1;
            let x = rand_tensor(d, &[3, 4], seed)
                .view(&[4, 3], &[1, 4], 0)
                .unwrap();
            let gx = upload(&x);
            let idx = Tensor::from_slice(&[2, 3], &[11i32, 0, 5, 5, 7, 1]).unwrap();
            let want = cpu_ref::take(SOC, &x, &idx).unwrap();
            let gi = upload(&idx);
            let out = output(d, &[2, 3]);
            trun(&gx.t, &gi.t, &out.t, &s).unwrap();
            assert_eq!(out.buf.read(), want.contiguous_bytes(), "{d}");
            // A 0-D int64 index into a strided out of one element.
            let i0 = Tensor::from_slice(&[], &[4i64]).unwrap();
            let want = cpu_ref::take(SOC, &x, &i0).unwrap();
            let gi0 = upload(&i0);
            let buf = Buf::from(&vec![0u8; d.size()]);
            let o = view(acl_dtype(d), &[], &[], 0, buf.ptr, 1);
            trun(&gx.t, &gi0.t, &o, &s).unwrap();
            assert_eq!(buf.read(), want.contiguous_bytes(), "{d} 0-D");
        }
    });
}

#[test]
#[serial]
fn take_first_phase_errors_in_cann_order_and_faults() {
    leak_checked(|| {
        let slots = Slots::new();
        let f = |d: aclDataType, shape: &[i64]| slots.t(d, shape);
        let null = T(std::ptr::null_mut());
        let (x, i, o) = (
            f(aclDataType::ACL_FLOAT, &[4, 3]),
            f(aclDataType::ACL_INT64, &[5]),
            f(aclDataType::ACL_FLOAT, &[5]),
        );
        for (k, (a, b, c)) in [(&null, &i, &o), (&x, &null, &o), (&x, &i, &null)]
            .into_iter()
            .enumerate()
        {
            let e = tfirst(a, b, c).unwrap_err();
            assert_eq!(e.0, ACLNN_ERR_PARAM_NULLPTR, "{k}");
            assert!(e.1.contains(["self", "index", "out"][k]), "{}", e.1);
        }
        let e = tfirst(
            &f(aclDataType::ACL_INT32, &[4, 3]),
            &f(aclDataType::ACL_FLOAT, &[5]),
            &o,
        )
        .unwrap_err();
        assert!(e.1.contains("differs"), "{}", e.1);
        let e = tfirst(&x, &f(aclDataType::ACL_FLOAT, &[5]), &o).unwrap_err();
        assert!(e.1.contains("INT64 or INT32"), "{}", e.1);
        let e = tfirst(
            &x,
            &f(aclDataType::ACL_INT32, &[1; 9]),
            &f(aclDataType::ACL_FLOAT, &[1; 9]),
        )
        .unwrap_err();
        assert!(e.1.contains("index has rank 9"), "{}", e.1);
        let e = tfirst(&x, &i, &f(aclDataType::ACL_FLOAT, &[5, 1])).unwrap_err();
        assert!(e.1.contains("must be index's"), "{}", e.1);
        let e = tfirst(&f(aclDataType::ACL_FLOAT, &[0, 3]), &i, &o).unwrap_err();
        assert!(e.1.contains("empty self"), "{}", e.1);
        // Empty: nothing planned.
        let s = Stream::new();
        let p = tfirst(
            &f(aclDataType::ACL_FLOAT, &[0, 3]),
            &f(aclDataType::ACL_INT32, &[0]),
            &f(aclDataType::ACL_FLOAT, &[0]),
        )
        .unwrap();
        assert_eq!(p.ws, 0);
        assert_eq!(launch(api().take().unwrap().run, &p, s.0), ACL_SUCCESS);
        // Out of range (12 elements) and negative: faults at synchronisation.
        let xd = upload(&rand_tensor(DType::Float32, &[4, 3], 1));
        for bad in [[0i64, 12], [-1, 0]] {
            let gi = upload(&Tensor::from_slice(&[2], &bad).unwrap());
            let out = output(DType::Float32, &[2]);
            let e = trun(&xd.t, &gi.t, &out.t, &s).unwrap_err();
            assert_eq!(e.0, "sync", "{e:?}");
            assert!(e.2.contains("index out of range"), "{}", e.2);
        }
    });
}

#[test]
#[serial]
fn take_products() {
    reinit("Ascend310P3");
    let buf = Buf::new(64);
    let slots = Slots::new();
    let x = slots.t(aclDataType::ACL_FLOAT, &[2, 2]);
    let i = slots.t(aclDataType::ACL_INT64, &[2]);
    let o = slots.t(aclDataType::ACL_FLOAT, &[2]);
    assert_eq!(
        tfirst(&x, &i, &o).unwrap_err().0,
        ACLNN_ERR_INNER_FIND_KERNEL_ERROR
    );
    drop((x, i, o));
    drop(buf);
    reinit(SOC);
}

fn icfirst(x: &T, dim: i64, i: &T, s: &T, o: &T) -> Result<Planned, (i32, String)> {
    let op = api().index_copy().unwrap();
    // SAFETY: handles live (or null), valid out-pointers.
    plan(|ws, ex| unsafe { (op.get_workspace_size)(x.0, dim, i.0, s.0, o.0, ws, ex) })
}

fn icrun(
    x: &T,
    dim: i64,
    i: &T,
    s: &T,
    o: &T,
    st: &Stream,
) -> Result<(), (&'static str, i32, String)> {
    let op = api().index_copy().unwrap();
    // SAFETY: live handles, valid out-pointers.
    exec(
        |ws, ex| unsafe { (op.get_workspace_size)(x.0, dim, i.0, s.0, o.0, ws, ex) },
        op.run,
        st,
    )
}

fn iirun(x: &T, dim: i64, i: &T, s: &T, st: &Stream) -> Result<(), (&'static str, i32, String)> {
    let op = api().inplace_index_copy().unwrap();
    // SAFETY: live handles, valid out-pointers.
    exec(
        |ws, ex| unsafe { (op.get_workspace_size)(x.0, dim, i.0, s.0, ws, ex) },
        op.run,
        st,
    )
}

#[test]
#[serial]
fn index_copy_both_forms_match_cpu_ref_through_views() {
    leak_checked(|| {
        let st = Stream::new();
        let mut seed = 90;
        for &d in cpu_ref::supported_dtypes(Op::IndexCopy, Family::A2) {
            for dim in [0i64, 1, -1] {
                seed += 1;
                // self: a transposed [4, 3] view; index [2] (int32, repeats
                // along dim 1); source of self's shape with 2 along dim.
                let x = rand_tensor(d, &[3, 4], seed)
                    .view(&[4, 3], &[1, 4], 0)
                    .unwrap();
                let vals: Vec<i32> = if dim == 0 { vec![3, 1] } else { vec![2, 2] };
                let idx = Tensor::from_slice(&[2], &vals).unwrap();
                let sshape = if dim == 0 { [2, 3] } else { [4, 2] };
                let src = rand_tensor(d, &sshape, seed + 1000);
                let want = cpu_ref::index_copy(SOC, &x, dim, &idx, &src).unwrap();
                let (gx, gi, gs) = (upload(&x), upload(&idx), upload(&src));
                let out = output(d, &[4, 3]);
                icrun(&gx.t, dim, &gi.t, &gs.t, &out.t, &st).unwrap();
                assert_eq!(out.buf.read(), want.contiguous_bytes(), "{d} dim {dim}");
                // In place, through the transposed view of selfRef.
                iirun(&gx.t, dim, &gi.t, &gs.t, &st).unwrap();
                let got = Tensor::from_bytes(d, &[3, 4], gx.buf.read())
                    .unwrap()
                    .view(&[4, 3], &[1, 4], 0)
                    .unwrap();
                assert_eq!(
                    got.contiguous_bytes(),
                    want.contiguous_bytes(),
                    "{d} in place"
                );
            }
        }
        // Out of place into selfRef's own buffer (through the workspace),
        // and an empty index (a copy of self).
        let x = rand_tensor(DType::Int32, &[3, 2], 5);
        let idx = Tensor::from_slice(&[1], &[1i64]).unwrap();
        let src = Tensor::from_slice(&[1, 2], &[7i32, 8]).unwrap();
        let want = cpu_ref::index_copy(SOC, &x, 0, &idx, &src).unwrap();
        let (gx, gi, gs) = (upload(&x), upload(&idx), upload(&src));
        icrun(&gx.t, 0, &gi.t, &gs.t, &gx.t, &st).unwrap();
        assert_eq!(gx.buf.read(), want.contiguous_bytes());
        let ei = upload(&Tensor::from_slice::<i64>(&[0], &[]).unwrap());
        let es = upload(&Tensor::from_slice::<i32>(&[0, 2], &[]).unwrap());
        let out = output(DType::Int32, &[3, 2]);
        icrun(&gx.t, 0, &ei.t, &es.t, &out.t, &st).unwrap();
        assert_eq!(out.buf.read(), want.contiguous_bytes());
    });
}

#[test]
#[serial]
fn index_copy_first_phase_errors_and_faults() {
    leak_checked(|| {
        let slots = Slots::new();
        let f = |d: aclDataType, shape: &[i64]| slots.t(d, shape);
        let null = T(std::ptr::null_mut());
        let (x, i, s, o) = (
            f(aclDataType::ACL_FLOAT, &[4, 3]),
            f(aclDataType::ACL_INT64, &[2]),
            f(aclDataType::ACL_FLOAT, &[2, 3]),
            f(aclDataType::ACL_FLOAT, &[4, 3]),
        );
        for (k, (a, b, c, e)) in [
            (&null, &i, &s, &o),
            (&x, &null, &s, &o),
            (&x, &i, &null, &o),
            (&x, &i, &s, &null),
        ]
        .into_iter()
        .enumerate()
        {
            let r = icfirst(a, 0, b, c, e).unwrap_err();
            assert_eq!(r.0, ACLNN_ERR_PARAM_NULLPTR, "{k}");
            assert!(
                r.1.contains(["selfRef", "index", "source", "outRef"][k]),
                "{}",
                r.1
            );
        }
        let e = icfirst(&f(aclDataType::ACL_UINT16, &[4, 3]), 0, &i, &s, &o).unwrap_err();
        assert!(e.1.contains("selfRef has data type"), "{}", e.1);
        let e = icfirst(&x, 0, &f(aclDataType::ACL_FLOAT, &[2]), &s, &o).unwrap_err();
        assert!(e.1.contains("INT64 or INT32"), "{}", e.1);
        let e = icfirst(&x, 0, &i, &f(aclDataType::ACL_INT32, &[2, 3]), &o).unwrap_err();
        assert!(e.1.contains("source data type"), "{}", e.1);
        let e = icfirst(&x, 0, &i, &s, &f(aclDataType::ACL_INT32, &[4, 3])).unwrap_err();
        assert!(e.1.contains("differs"), "{}", e.1);
        let e = icfirst(&x, 0, &f(aclDataType::ACL_INT64, &[2, 1]), &s, &o).unwrap_err();
        assert!(e.1.contains("index has rank 2"), "{}", e.1);
        let e = icfirst(&x, 0, &i, &s, &f(aclDataType::ACL_FLOAT, &[3, 4])).unwrap_err();
        assert!(e.1.contains("must be selfRef's"), "{}", e.1);
        let e = icfirst(&x, 0, &i, &f(aclDataType::ACL_FLOAT, &[6]), &o).unwrap_err();
        assert!(e.1.contains("the same"), "{}", e.1);
        let e = icfirst(&x, 2, &i, &s, &o).unwrap_err();
        assert!(e.1.contains("outside"), "{}", e.1);
        let e = icfirst(&x, 0, &i, &f(aclDataType::ACL_FLOAT, &[3, 3]), &o).unwrap_err();
        assert!(e.1.contains("with 2 along dim 0"), "{}", e.1);
        // Indices out of range: the scatter faults at synchronisation.
        let st = Stream::new();
        let xd = upload(&rand_tensor(DType::Float32, &[4, 3], 1));
        let sd = upload(&rand_tensor(DType::Float32, &[2, 3], 2));
        for bad in [[0i64, 4], [-1, 0]] {
            let gi = upload(&Tensor::from_slice(&[2], &bad).unwrap());
            let out = output(DType::Float32, &[4, 3]);
            let e = icrun(&xd.t, 0, &gi.t, &sd.t, &out.t, &st).unwrap_err();
            assert_eq!(e.0, "sync", "{e:?}");
            assert!(e.2.contains("index out of range"), "{}", e.2);
            let e = iirun(&xd.t, 0, &gi.t, &sd.t, &st).unwrap_err();
            assert_eq!(e.0, "sync", "{e:?}");
        }
    });
}

#[test]
#[serial]
fn index_copy_products() {
    reinit("Ascend310P3");
    let buf = Buf::new(64);
    let slots = Slots::new();
    let x = slots.t(aclDataType::ACL_FLOAT, &[2, 2]);
    let i = slots.t(aclDataType::ACL_INT64, &[1]);
    let s = slots.t(aclDataType::ACL_FLOAT, &[1, 2]);
    assert_eq!(
        icfirst(&x, 0, &i, &s, &x).unwrap_err().0,
        ACLNN_ERR_INNER_FIND_KERNEL_ERROR
    );
    drop((x, i, s));
    drop(buf);
    reinit(SOC);
}

fn ndfirst(x: &T, i: &T, neg: bool, o: &T) -> Result<Planned, (i32, String)> {
    let op = api().gather_nd().unwrap();
    // SAFETY: handles live (or null), valid out-pointers.
    plan(|ws, ex| unsafe { (op.get_workspace_size)(x.0, i.0, neg, o.0, ws, ex) })
}

fn ndrun(x: &T, i: &T, neg: bool, o: &T, st: &Stream) -> Result<(), (&'static str, i32, String)> {
    let op = api().gather_nd().unwrap();
    // SAFETY: live handles, valid out-pointers.
    exec(
        |ws, ex| unsafe { (op.get_workspace_size)(x.0, i.0, neg, o.0, ws, ex) },
        op.run,
        st,
    )
}

#[test]
#[serial]
fn gather_nd_every_dtype_matches_cpu_ref_through_views() {
    leak_checked(|| {
        let st = Stream::new();
        let mut seed = 120;
        for &d in cpu_ref::supported_dtypes(Op::GatherNd, Family::A2) {
            seed += 1;
            // self: a transposed [4, 3] view; K = 1 and K = 2, negatives.
            let x = rand_tensor(d, &[3, 4], seed)
                .view(&[4, 3], &[1, 4], 0)
                .unwrap();
            let gx = upload(&x);
            for (ishape, vals, neg) in [
                (vec![3usize, 1], vec![3i64, 0, 2], false),
                (vec![2, 2], vec![-1, 2, 0, -3], true),
                (vec![1, 1, 2], vec![1, 1], false),
            ] {
                let idx = Tensor::from_slice(&ishape, &vals).unwrap();
                let want = cpu_ref::gather_nd(SOC, &x, &idx, neg).unwrap();
                let gi = upload(&idx);
                let out = output(d, want.shape());
                ndrun(&gx.t, &gi.t, neg, &out.t, &st).unwrap();
                assert_eq!(out.buf.read(), want.contiguous_bytes(), "{d} {ishape:?}");
            }
            // A strided int32 indices view into a strided out.
            let base = Tensor::from_slice(&[2, 2], &[2i32, 9, 0, 9]).unwrap();
            let idx = base.view(&[2, 1], &[2, 1], 0).unwrap();
            let want = cpu_ref::gather_nd(SOC, &x, &idx, false).unwrap();
            let gi = upload(&idx);
            let buf = Buf::from(&vec![0u8; 6 * d.size()]);
            let o = view(acl_dtype(d), &[2, 3], &[1, 2], 0, buf.ptr, 6);
            ndrun(&gx.t, &gi.t, false, &o, &st).unwrap();
            let got = Tensor::from_bytes(d, &[6], buf.read())
                .unwrap()
                .view(&[2, 3], &[1, 2], 0)
                .unwrap();
            assert_eq!(got.contiguous_bytes(), want.contiguous_bytes(), "{d} views");
        }
    });
}

#[test]
#[serial]
fn gather_nd_first_phase_errors_faults_and_products() {
    leak_checked(|| {
        let slots = Slots::new();
        let f = |d: aclDataType, shape: &[i64]| slots.t(d, shape);
        let null = T(std::ptr::null_mut());
        let (x, i, o) = (
            f(aclDataType::ACL_FLOAT, &[4, 3]),
            f(aclDataType::ACL_INT64, &[2, 1]),
            f(aclDataType::ACL_FLOAT, &[2, 3]),
        );
        for (k, (a, b, c)) in [(&null, &i, &o), (&x, &null, &o), (&x, &i, &null)]
            .into_iter()
            .enumerate()
        {
            let e = ndfirst(a, b, false, c).unwrap_err();
            assert_eq!(e.0, ACLNN_ERR_PARAM_NULLPTR, "{k}");
            assert!(e.1.contains(["self", "indices", "out"][k]), "{}", e.1);
        }
        let e = ndfirst(&x, &i, false, &f(aclDataType::ACL_INT32, &[2, 3])).unwrap_err();
        assert!(e.1.contains("differs"), "{}", e.1);
        let e = ndfirst(
            &f(aclDataType::ACL_INT16, &[4, 3]),
            &i,
            false,
            &f(aclDataType::ACL_INT16, &[2, 3]),
        )
        .unwrap_err();
        assert!(e.1.contains("self has data type"), "{}", e.1);
        let e = ndfirst(&x, &f(aclDataType::ACL_FLOAT, &[2, 1]), false, &o).unwrap_err();
        assert!(e.1.contains("INT64 or INT32"), "{}", e.1);
        let e = ndfirst(&x, &f(aclDataType::ACL_INT64, &[]), false, &o).unwrap_err();
        assert!(e.1.contains("indices has rank 0"), "{}", e.1);
        let e = ndfirst(&x, &f(aclDataType::ACL_INT64, &[2, 3]), false, &o).unwrap_err();
        assert!(e.1.contains("last extent 3"), "{}", e.1);
        let e = ndfirst(&x, &i, false, &f(aclDataType::ACL_FLOAT, &[2, 4])).unwrap_err();
        assert!(e.1.contains("must be [2, 3]"), "{}", e.1);
        // Coordinates out of range (negative without the flag): a fault.
        let st = Stream::new();
        let xd = upload(&rand_tensor(DType::Float32, &[4, 3], 1));
        for (bad, neg) in [([0i64, 4], false), ([-1, 0], false), ([-5, 0], true)] {
            let gi = upload(&Tensor::from_slice(&[2, 1], &bad).unwrap());
            let out = output(DType::Float32, &[2, 3]);
            let e = ndrun(&xd.t, &gi.t, neg, &out.t, &st).unwrap_err();
            assert_eq!(e.0, "sync", "{e:?}");
            assert!(e.2.contains("index out of range"), "{}", e.2);
        }
        // Empty indices: nothing planned.
        let p = ndfirst(
            &x,
            &f(aclDataType::ACL_INT64, &[0, 1]),
            false,
            &f(aclDataType::ACL_FLOAT, &[0, 3]),
        )
        .unwrap();
        assert_eq!(p.ws, 0);
        assert_eq!(
            launch(api().gather_nd().unwrap().run, &p, st.0),
            ACL_SUCCESS
        );
    });
    reinit("Ascend310B1");
    let buf = Buf::new(64);
    let slots = Slots::new();
    let x = slots.t(aclDataType::ACL_FLOAT, &[2, 2]);
    let i = slots.t(aclDataType::ACL_INT64, &[1, 1]);
    let o = slots.t(aclDataType::ACL_FLOAT, &[1, 2]);
    assert_eq!(
        ndfirst(&x, &i, false, &o).unwrap_err().0,
        ACLNN_ERR_INNER_FIND_KERNEL_ERROR
    );
    drop((x, i, o));
    drop(buf);
    reinit(SOC);
}

fn msfirst(x: &T, m: &T, o: &T) -> Result<Planned, (i32, String)> {
    let op = api().masked_select().unwrap();
    // SAFETY: handles live (or null), valid out-pointers.
    plan(|ws, ex| unsafe { (op.get_workspace_size)(x.0, m.0, o.0, ws, ex) })
}

fn msrun(x: &T, m: &T, o: &T, st: &Stream) -> Result<(), (&'static str, i32, String)> {
    let op = api().masked_select().unwrap();
    // SAFETY: live handles, valid out-pointers.
    exec(
        |ws, ex| unsafe { (op.get_workspace_size)(x.0, m.0, o.0, ws, ex) },
        op.run,
        st,
    )
}

#[test]
#[serial]
fn masked_select_every_dtype_matches_cpu_ref_through_views() {
    leak_checked(|| {
        let st = Stream::new();
        let mut seed = 150;
        for &d in cpu_ref::supported_dtypes(Op::MaskedSelect, Family::A2) {
            seed += 1;
            // self: a transposed [4, 3] view; a full mask, a broadcast row
            // mask (uint8), a 0-D mask.
            let x = rand_tensor(d, &[3, 4], seed)
                .view(&[4, 3], &[1, 4], 0)
                .unwrap();
            let gx = upload(&x);
            let full: Vec<u8> = (0..12).map(|k| (k % 3 == 0) as u8).collect();
            for mask in [
                Tensor::from_bytes(DType::Bool, &[4, 3], full.clone()).unwrap(),
                Tensor::from_bytes(DType::UInt8, &[3], vec![0, 5, 1]).unwrap(),
                Tensor::from_bytes(DType::Bool, &[], vec![1]).unwrap(),
            ] {
                let want = cpu_ref::masked_select(SOC, &x, &mask).unwrap();
                let gm = upload(&mask);
                // out: 12 elements, the tail left as it was (0xAB bytes).
                let buf = Buf::from(&vec![0xABu8; 12 * d.size()]);
                let o = view(acl_dtype(d), &[12], &[1], 0, buf.ptr, 12);
                msrun(&gx.t, &gm.t, &o, &st).unwrap();
                let got = buf.read();
                let n = want.contiguous_bytes().len();
                assert_eq!(
                    &got[..n],
                    &want.contiguous_bytes()[..],
                    "{d} {:?}",
                    mask.shape()
                );
                assert!(got[n..].iter().all(|&b| b == 0xAB), "{d}: the tail changed");
            }
            // A strided out: every other element of 24.
            let mask = Tensor::from_bytes(DType::Bool, &[4, 3], full.clone()).unwrap();
            let want = cpu_ref::masked_select(SOC, &x, &mask).unwrap();
            let gm = upload(&mask);
            let buf = Buf::from(&vec![0u8; 24 * d.size()]);
            let o = view(acl_dtype(d), &[12], &[2], 0, buf.ptr, 24);
            msrun(&gx.t, &gm.t, &o, &st).unwrap();
            let got = Tensor::from_bytes(d, &[24], buf.read())
                .unwrap()
                .view(&[want.numel()], &[2], 0)
                .unwrap();
            assert_eq!(
                got.contiguous_bytes(),
                want.contiguous_bytes(),
                "{d} strided out"
            );
        }
    });
}

#[test]
#[serial]
fn masked_select_first_phase_errors_and_products() {
    leak_checked(|| {
        let slots = Slots::new();
        let f = |d: aclDataType, shape: &[i64]| slots.t(d, shape);
        let null = T(std::ptr::null_mut());
        let (x, m, o) = (
            f(aclDataType::ACL_FLOAT, &[4, 3]),
            f(aclDataType::ACL_BOOL, &[3]),
            f(aclDataType::ACL_FLOAT, &[12]),
        );
        for (k, (a, b, c)) in [(&null, &m, &o), (&x, &null, &o), (&x, &m, &null)]
            .into_iter()
            .enumerate()
        {
            let e = msfirst(a, b, c).unwrap_err();
            assert_eq!(e.0, ACLNN_ERR_PARAM_NULLPTR, "{k}");
            assert!(e.1.contains(["self", "mask", "out"][k]), "{}", e.1);
        }
        let e = msfirst(&f(aclDataType::ACL_UINT16, &[4, 3]), &m, &o).unwrap_err();
        assert!(e.1.contains("self has data type"), "{}", e.1);
        let e = msfirst(&x, &f(aclDataType::ACL_INT8, &[3]), &o).unwrap_err();
        assert!(e.1.contains("BOOL or UINT8"), "{}", e.1);
        let e = msfirst(&x, &m, &f(aclDataType::ACL_INT32, &[12])).unwrap_err();
        assert!(e.1.contains("differs"), "{}", e.1);
        let e = msfirst(&x, &f(aclDataType::ACL_BOOL, &[4]), &o).unwrap_err();
        assert!(e.1.contains("do not broadcast"), "{}", e.1);
        let e = msfirst(&x, &m, &f(aclDataType::ACL_FLOAT, &[4, 3])).unwrap_err();
        assert!(e.1.contains("must be [12]"), "{}", e.1);
        // Empty: nothing planned, and the run succeeds.
        let st = Stream::new();
        let runs_empty = |x: &T, m: &T| {
            let p = msfirst(x, m, &f(aclDataType::ACL_FLOAT, &[0])).unwrap();
            assert_eq!(p.ws, 0);
            assert_eq!(
                launch(api().masked_select().unwrap().run, &p, st.0),
                ACL_SUCCESS
            );
        };
        runs_empty(&f(aclDataType::ACL_FLOAT, &[0, 3]), &m);
        // Huge extents (stride-0 views): a zero extent makes the broadcast
        // count 0 although 2^62 * 8 overflows; without one it is refused.
        let buf = Buf::new(64);
        let huge = view(
            aclDataType::ACL_FLOAT,
            &[1 << 62, 1, 0],
            &[0, 0, 0],
            0,
            buf.ptr,
            1,
        );
        runs_empty(&huge, &f(aclDataType::ACL_BOOL, &[1, 8, 1]));
        let huge = view(
            aclDataType::ACL_FLOAT,
            &[1 << 62, 1],
            &[0, 0],
            0,
            buf.ptr,
            1,
        );
        let e = msfirst(&huge, &f(aclDataType::ACL_BOOL, &[1, 8]), &o).unwrap_err();
        assert_eq!(e.0, ACLNN_ERR_PARAM_INVALID);
        assert!(e.1.contains("overflows"), "{}", e.1);
        drop(huge);
        drop(buf);
    });
    reinit("Ascend310B1");
    let buf = Buf::new(64);
    let slots = Slots::new();
    let x = slots.t(aclDataType::ACL_FLOAT, &[2]);
    let m = slots.t(aclDataType::ACL_BOOL, &[2]);
    assert_eq!(
        msfirst(&x, &m, &x).unwrap_err().0,
        ACLNN_ERR_INNER_FIND_KERNEL_ERROR
    );
    drop((x, m));
    drop(buf);
    reinit(SOC);
}

/// An `out` over the memory a gather reads is refused in the first phase
/// (161002, naming what it meets): the kernels would read what they write.
#[test]
#[serial]
fn gathers_refuse_an_out_over_what_they_read() {
    leak_checked(|| {
        // One f32 buffer of 16 elements: self is its first 4, out elements
        // 2..6 (over self) or 8..12 (apart); an int64 index of 4 in a
        // buffer of its own.
        let buf = Buf::new(64);
        let x = view(aclDataType::ACL_FLOAT, &[4], &[1], 0, buf.ptr, 16);
        let over = view(aclDataType::ACL_FLOAT, &[4], &[1], 2, buf.ptr, 16);
        let apart = view(aclDataType::ACL_FLOAT, &[4], &[1], 8, buf.ptr, 16);
        let ib = Buf::from(&[3i64, 2, 1, 0].map(i64::to_le_bytes).concat());
        let i = dense(aclDataType::ACL_INT64, &[4], &ib);
        let on_index = view(aclDataType::ACL_FLOAT, &[4], &[1], 0, ib.ptr, 8);
        for (o, what) in [(&over, "self"), (&on_index, "index")] {
            let (code, msg) = first(&x, 0, &i, o).expect_err("refused");
            assert_eq!(code, ACLNN_ERR_PARAM_INVALID, "{msg}");
            assert!(msg.contains(&format!("shares memory with {what}")), "{msg}");
            let (code, msg) = gfirst(&x, 0, &i, o).expect_err("refused");
            assert_eq!(code, ACLNN_ERR_PARAM_INVALID, "{msg}");
            let (code, msg) = tfirst(&x, &i, o).expect_err("refused");
            assert_eq!(code, ACLNN_ERR_PARAM_INVALID, "{msg}");
            let op = api().index_select().unwrap();
            // SAFETY: live handles, valid out-pointers.
            let r = plan(|ws, ex| unsafe { (op.get_workspace_size)(x.0, 0, i.0, o.0, ws, ex) });
            assert_eq!(r.expect_err("refused").0, ACLNN_ERR_PARAM_INVALID);
        }
        // Apart, the same call plans and runs.
        let s = Stream::new();
        run(&x, 0, &i, &apart, &s).unwrap();
        // A repeatable executor planned apart, then self rebound onto out's
        // bytes (its base 32 bytes in): the launch is refused (161002).
        let op = api().gather_v2().unwrap();
        // SAFETY: live handles, valid out-pointers.
        let p = plan(|ws, ex| unsafe { (op.get_workspace_size)(x.0, 0, i.0, apart.0, ws, ex) })
            .unwrap();
        // SAFETY: a live one-shot executor made repeatable; self's new base
        // lies inside the same live buffer.
        unsafe {
            assert_eq!((api().aclSetAclOpExecutorRepeatable.unwrap())(p.ex), 0);
            let moved = buf.ptr.cast::<u8>().add(32).cast::<std::ffi::c_void>();
            assert_eq!(
                (api().aclSetInputTensorAddr.unwrap())(p.ex, 0, x.0, moved),
                0
            );
        }
        assert_eq!(launch(op.run, &p, s.0), ACLNN_ERR_PARAM_INVALID);
        assert_eq!(s.sync(), 0);
        // SAFETY: a live repeatable executor, destroyed once.
        assert_eq!(unsafe { (api().aclDestroyAclOpExecutor.unwrap())(p.ex) }, 0);
    });
}
