//! aclnnSplitTensor and aclnnSplitWithSize through the C ABI: every dtype
//! against cpu-ref, views as self and as outputs, an output meeting self
//! (staged), the first phase's order and codes, empty tensors, products.

mod common;

use cann_sys::*;
use common::*;
use cpu_ref::{DType, Family, Op, Tensor};
use serial_test::serial;

const SOC: &str = "Ascend910B3";

fn rand_tensor(d: DType, shape: &[usize], seed: u64) -> Tensor {
    let n: usize = shape.iter().product();
    Tensor::from_bytes(d, shape, data(d, n, seed)).unwrap()
}

/// An `aclTensorList`, destroyed (with its members) on drop.
struct List(*mut aclTensorList);

impl Drop for List {
    fn drop(&mut self) {
        // SAFETY: a live list, destroyed once.
        unsafe { (api().aclDestroyTensorList)(self.0) };
    }
}

/// A list owning `members` (their handles move into it).
fn list(members: Vec<T>) -> List {
    let raw: Vec<*const aclTensor> = members.iter().map(|t| t.0 as *const aclTensor).collect();
    // SAFETY: valid array of live handles.
    let l = unsafe { (api().aclCreateTensorList)(raw.as_ptr(), raw.len() as u64) };
    assert!(!l.is_null(), "{}", last_error());
    for t in members {
        std::mem::forget(t);
    }
    List(l)
}

/// An int array, destroyed on drop.
struct Arr(*mut aclIntArray);

impl Arr {
    fn new(v: &[i64]) -> Arr {
        // SAFETY: a valid slice; copied by the call.
        Arr(unsafe { (api().aclCreateIntArray)(v.as_ptr(), v.len() as u64) })
    }
}

impl Drop for Arr {
    fn drop(&mut self) {
        // SAFETY: a live array, destroyed once.
        unsafe { (api().aclDestroyIntArray)(self.0) };
    }
}

fn first_sections(x: &T, sections: u64, dim: i64, l: &List) -> Result<Planned, (i32, String)> {
    let op = api().split_tensor().unwrap();
    // SAFETY: live handles (or null), valid out-pointers.
    plan(|w, e| unsafe { (op.get_workspace_size)(x.0, sections, dim, l.0, w, e) })
}

fn first_sizes(x: &T, sizes: &Arr, dim: i64, l: &List) -> Result<Planned, (i32, String)> {
    let op = api().split_with_size().unwrap();
    // SAFETY: live handles (or null), valid out-pointers.
    plan(|w, e| unsafe { (op.get_workspace_size)(x.0, sizes.0, dim, l.0, w, e) })
}

/// Outputs for `pieces`: transposed views (rank 2) or dense buffers, each
/// in a buffer of its own; returns the buffers and the list.
fn outputs(pieces: &[Tensor], transposed: bool) -> (Vec<Buf>, List) {
    let (mut bufs, mut ts) = (Vec::new(), Vec::new());
    for p in pieces {
        let buf = Buf::new(p.numel().max(1) * p.dtype().size());
        let shape: Vec<i64> = p.shape().iter().map(|&n| n as i64).collect();
        let t = if transposed && shape.len() == 2 {
            view(
                acl_dtype(p.dtype()),
                &shape,
                &[1, shape[0]],
                0,
                buf.ptr,
                p.numel() as i64,
            )
        } else {
            dense(acl_dtype(p.dtype()), &shape, &buf)
        };
        bufs.push(buf);
        ts.push(t);
    }
    (bufs, list(ts))
}

/// A piece read back from its buffer (transposed as written).
fn read_piece(p: &Tensor, b: &Buf, transposed: bool) -> Vec<u8> {
    let bytes = b.read()[..p.numel() * p.dtype().size()].to_vec();
    if transposed && p.rank() == 2 {
        let (r, c) = (p.shape()[0], p.shape()[1]);
        Tensor::from_bytes(p.dtype(), &[c, r], bytes)
            .unwrap()
            .view(&[r, c], &[1, r], 0)
            .unwrap()
            .contiguous_bytes()
    } else {
        bytes
    }
}

#[test]
#[serial]
fn every_dtype_matches_cpu_ref_through_views() {
    leak_checked(|| {
        let s = Stream::new();
        let mut seed = 3;
        for &d in cpu_ref::supported_dtypes(Op::SplitWithSize, Family::A2) {
            for dim in [0i64, 1, -1] {
                for transposed in [false, true] {
                    seed += 1;
                    // self: a transposed [5, 4] view of a [4, 5] buffer.
                    let x = rand_tensor(d, &[4, 5], seed)
                        .view(&[5, 4], &[1, 5], 0)
                        .unwrap();
                    let gx = upload(&x);
                    // SplitTensor by 2.
                    let want = cpu_ref::split_tensor(SOC, &x, 2, dim).unwrap();
                    let (bufs, l) = outputs(&want, transposed);
                    let p = first_sections(&gx.t, 2, dim, &l).unwrap();
                    assert_eq!(launch(api().split_tensor().unwrap().run, &p, s.0), 0);
                    assert_eq!(s.sync(), 0, "{}", last_error());
                    for (k, (w, b)) in want.iter().zip(&bufs).enumerate() {
                        assert_eq!(
                            read_piece(w, b, transposed),
                            w.contiguous_bytes(),
                            "{d} dim {dim} piece {k}"
                        );
                    }
                    // SplitWithSize with an empty piece.
                    let n = x.shape()[dim.rem_euclid(2) as usize] as i64;
                    let sizes = [1, 0, n - 1];
                    let want = cpu_ref::split_with_size(SOC, &x, &sizes, dim).unwrap();
                    let (bufs, l) = outputs(&want, transposed);
                    let arr = Arr::new(&sizes);
                    let p = first_sizes(&gx.t, &arr, dim, &l).unwrap();
                    assert_eq!(launch(api().split_with_size().unwrap().run, &p, s.0), 0);
                    assert_eq!(s.sync(), 0, "{}", last_error());
                    for (k, (w, b)) in want.iter().zip(&bufs).enumerate() {
                        if w.numel() > 0 {
                            assert_eq!(
                                read_piece(w, b, transposed),
                                w.contiguous_bytes(),
                                "{d} dim {dim} size piece {k}"
                            );
                        }
                    }
                }
            }
        }
    });
}

#[test]
#[serial]
fn pieces_big_enough_for_both_cores_run_as_one_group() {
    // The pieces of a launch run as one parallel region when they touch
    // disjoint memory (`kernels::copy_group`): megabytes, so that blocks
    // go to both cores, with pieces of unequal size, row pieces and column
    // pieces, dense and transposed outputs.
    leak_checked(|| {
        let s = Stream::new();
        let x = rand_tensor(DType::Int32, &[768, 1024], 21);
        let gx = upload(&x);
        for dim in [0i64, 1] {
            for transposed in [false, true] {
                let n = x.shape()[dim as usize] as i64;
                let sizes = [100, 0, 300, n - 400];
                let want = cpu_ref::split_with_size(SOC, &x, &sizes, dim).unwrap();
                let (bufs, l) = outputs(&want, transposed);
                let arr = Arr::new(&sizes);
                let p = first_sizes(&gx.t, &arr, dim, &l).unwrap();
                assert_eq!(launch(api().split_with_size().unwrap().run, &p, s.0), 0);
                assert_eq!(s.sync(), 0, "{}", last_error());
                for (k, (w, b)) in want.iter().zip(&bufs).enumerate() {
                    if w.numel() > 0 {
                        assert!(
                            read_piece(w, b, transposed) == w.contiguous_bytes(),
                            "dim {dim} transposed {transposed} piece {k}"
                        );
                    }
                }
            }
        }
        // Outputs over self (each piece written where another is read):
        // staged in the workspace first, the staging copy and the pieces
        // in order.
        let x = rand_tensor(DType::Int32, &[1 << 20], 22);
        let want = cpu_ref::split_tensor(SOC, &x, 1 << 19, 0).unwrap();
        let g = upload(&x);
        let hi = view(
            aclDataType::ACL_INT32,
            &[1 << 19],
            &[1],
            1 << 19,
            g.buf.ptr,
            1 << 20,
        );
        let lo = view(
            aclDataType::ACL_INT32,
            &[1 << 19],
            &[1],
            0,
            g.buf.ptr,
            1 << 20,
        );
        let l = list(vec![hi, lo]);
        let p = first_sections(&g.t, 1 << 19, 0, &l).unwrap();
        assert!(p.ws >= 4 << 20);
        assert_eq!(launch(api().split_tensor().unwrap().run, &p, s.0), 0);
        assert_eq!(s.sync(), 0, "{}", last_error());
        let got = g.buf.read();
        assert!(got[2 << 20..] == want[0].contiguous_bytes()[..]);
        assert!(got[..2 << 20] == want[1].contiguous_bytes()[..]);
    });
}

#[test]
#[serial]
fn an_output_meeting_self_is_staged() {
    leak_checked(|| {
        let s = Stream::new();
        // Split [0..8) into [4] and [4]; out[0] is self's second half and
        // out[1] its first: every piece read before any write.
        let x = rand_tensor(DType::Int32, &[8], 9);
        let want = cpu_ref::split_tensor(SOC, &x, 4, 0).unwrap();
        let g = upload(&x);
        let hi = view(aclDataType::ACL_INT32, &[4], &[1], 4, g.buf.ptr, 8);
        let lo = view(aclDataType::ACL_INT32, &[4], &[1], 0, g.buf.ptr, 8);
        let l = list(vec![hi, lo]);
        let p = first_sections(&g.t, 4, 0, &l).unwrap();
        assert!(p.ws >= 32);
        assert_eq!(launch(api().split_tensor().unwrap().run, &p, s.0), 0);
        assert_eq!(s.sync(), 0);
        let got = g.buf.read();
        assert_eq!(&got[16..32], &want[0].contiguous_bytes()[..]);
        assert_eq!(&got[..16], &want[1].contiguous_bytes()[..]);
    });
}

#[test]
#[serial]
fn first_phase_errors_in_cann_order() {
    leak_checked(|| {
        let buf = Buf::new(4096);
        let f = |d: aclDataType, shape: &[i64]| dense(d, shape, &buf);
        let null = T(std::ptr::null_mut());
        let x = f(aclDataType::ACL_FLOAT, &[2, 5]);
        // Two outputs side by side in the buffer, after self's 10 floats.
        let two = || {
            list(vec![
                view(aclDataType::ACL_FLOAT, &[2, 3], &[3, 1], 16, buf.ptr, 64),
                view(aclDataType::ACL_FLOAT, &[2, 2], &[2, 1], 32, buf.ptr, 64),
            ])
        };
        // Null self, then null splitSize, then null out.
        let l = two();
        let e = first_sections(&null, 3, 1, &l).unwrap_err();
        assert_eq!(e.0, ACLNN_ERR_PARAM_NULLPTR);
        assert!(e.1.contains("self"), "{}", e.1);
        let e = first_sizes(&x, &Arr(std::ptr::null_mut()), 1, &l).unwrap_err();
        assert!(e.1.contains("splitSize"), "{}", e.1);
        let nl = List(std::ptr::null_mut());
        let e = first_sections(&x, 3, 1, &nl).unwrap_err();
        assert_eq!(e.0, ACLNN_ERR_PARAM_NULLPTR);
        assert!(e.1.contains("out"), "{}", e.1);
        std::mem::forget(nl);
        // Good calls plan (and run).
        let s0 = Stream::new();
        let p = first_sections(&x, 3, 1, &l).unwrap();
        assert_eq!(
            launch(api().split_tensor().unwrap().run, &p, s0.0),
            ACL_SUCCESS
        );
        let arr = Arr::new(&[3, 2]);
        let p = first_sizes(&x, &arr, -1, &l).unwrap();
        assert_eq!(
            launch(api().split_with_size().unwrap().run, &p, s0.0),
            ACL_SUCCESS
        );
        assert_eq!(s0.sync(), 0);
        // dim, sections, sizes, counts, shapes, dtypes.
        let e = first_sections(&x, 3, 2, &l).unwrap_err();
        assert_eq!(e.0, ACLNN_ERR_PARAM_INVALID);
        assert!(e.1.contains("dim"), "{}", e.1);
        let e = first_sections(&x, 0, 1, &l).unwrap_err();
        assert!(e.1.contains("splitSections"), "{}", e.1);
        let e = first_sections(&x, 2, 1, &l).unwrap_err();
        assert!(e.1.contains("pieces"), "{}", e.1);
        let e = first_sizes(&x, &Arr::new(&[6, -1]), 1, &l).unwrap_err();
        assert!(e.1.contains("non-negative"), "{}", e.1);
        let e = first_sizes(&x, &Arr::new(&[2, 2]), 1, &l).unwrap_err();
        assert!(e.1.contains("sum"), "{}", e.1);
        let e = first_sizes(&x, &Arr::new(&[2, 3]), 1, &l).unwrap_err();
        assert!(e.1.contains("shape"), "{}", e.1);
        let wrong = list(vec![
            f(aclDataType::ACL_INT32, &[2, 3]),
            f(aclDataType::ACL_INT32, &[2, 2]),
        ]);
        let e = first_sections(&x, 3, 1, &wrong).unwrap_err();
        assert!(e.1.contains("data type"), "{}", e.1);
        // Rank 0, an output written twice, two outputs meeting.
        let z = f(aclDataType::ACL_FLOAT, &[]);
        let e = first_sections(&z, 1, 0, &l).unwrap_err();
        assert!(e.1.contains("rank 0"), "{}", e.1);
        let twice = list(vec![
            view(aclDataType::ACL_FLOAT, &[2, 3], &[0, 1], 0, buf.ptr, 3),
            f(aclDataType::ACL_FLOAT, &[2, 2]),
        ]);
        let e = first_sections(&x, 3, 1, &twice).unwrap_err();
        assert!(e.1.contains("twice"), "{}", e.1);
        let meet = list(vec![
            view(aclDataType::ACL_FLOAT, &[2, 3], &[3, 1], 0, buf.ptr, 6),
            view(aclDataType::ACL_FLOAT, &[2, 2], &[2, 1], 2, buf.ptr, 6),
        ]);
        let e = first_sections(&x, 3, 1, &meet).unwrap_err();
        assert!(e.1.contains("share memory"), "{}", e.1);
        // Empty self: plans nothing, runs.
        let s = Stream::new();
        let ez = f(aclDataType::ACL_FLOAT, &[0, 3]);
        let el = list(vec![f(aclDataType::ACL_FLOAT, &[0, 3])]);
        let p = first_sections(&ez, 0, 0, &el).unwrap();
        assert_eq!(p.ws, 0);
        assert_eq!(
            launch(api().split_tensor().unwrap().run, &p, s.0),
            ACL_SUCCESS
        );
    });
}

#[test]
#[serial]
fn products() {
    reinit("Ascend310P3");
    let buf = Buf::new(64);
    let x = dense(aclDataType::ACL_FLOAT, &[2], &buf);
    let l = list(vec![dense(aclDataType::ACL_FLOAT, &[2], &buf)]);
    // Planned and run (an executor never run would outlive the test).
    let p = first_sections(&x, 2, 0, &l).unwrap();
    let s = Stream::new();
    assert_eq!(
        launch(api().split_tensor().unwrap().run, &p, s.0),
        ACL_SUCCESS
    );
    assert_eq!(s.sync(), 0);
    drop(s);
    assert_eq!(
        first_sizes(&x, &Arr::new(&[2]), 0, &l).unwrap_err().0,
        ACLNN_ERR_INNER_FIND_KERNEL_ERROR
    );
    drop((x, l));
    drop(buf);
    reinit(SOC);
}

/// An extent of 2^40 (a stride-0 view) split by 1 into a list of one:
/// refused for the count at once (the list of 2^40 pieces was built
/// first, and the process aborted).
#[test]
#[serial]
fn a_huge_extent_split_by_one_is_refused_for_the_count() {
    leak_checked(|| {
        let buf = Buf::new(64);
        let n: i64 = 1 << 40;
        let x = view(aclDataType::ACL_FLOAT, &[n], &[0], 0, buf.ptr, 1);
        let out = Buf::new(64);
        let o = view(aclDataType::ACL_FLOAT, &[1], &[1], 0, out.ptr, 1);
        let list = list(vec![o]);
        let op = api().split_tensor().unwrap();
        let (mut ws, mut ex) = (0u64, std::ptr::null_mut());
        // SAFETY: live handles, valid out-pointers.
        let code = unsafe { (op.get_workspace_size)(x.0, 1, 0, list.0, &mut ws, &mut ex) };
        assert_eq!(code, 161002);
        assert!(
            last_error().contains("pieces, but out holds 1 tensors"),
            "{}",
            last_error()
        );
    });
}
