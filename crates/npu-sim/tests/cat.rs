//! aclnnCat through the C ABI: every dtype against cpu-ref, views as
//! members and as out, casts, the first phase's order and codes, dropped
//! members, empty tensors, staging when out meets a member, and
//! repeatable executors.

mod common;

use cann_sys::*;
use common::*;
use cpu_ref::{DType, Family, Op, Tensor};
use serial_test::serial;
use std::ptr::null_mut;

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

/// Uploads `xs`: their buffers (kept by the caller) and a list of them.
fn upload_list(xs: &[&Tensor]) -> (Vec<Buf>, List) {
    let (mut bufs, mut ts) = (Vec::new(), Vec::new());
    for x in xs {
        let Dev { t, buf } = upload(x);
        bufs.push(buf);
        ts.push(t);
    }
    (bufs, list(ts))
}

fn cat(l: &List, dim: i64, out: &T, s: &Stream) -> Result<(), (&'static str, i32, String)> {
    let op = api().cat().unwrap();
    // SAFETY: live handles, valid out-pointers.
    exec(
        |w, e| unsafe { (op.get_workspace_size)(l.0, dim, out.0, w, e) },
        op.run,
        s,
    )
}

#[test]
#[serial]
fn cat_every_dtype_matches_cpu_ref() {
    leak_checked(|| {
        let s = Stream::new();
        for d in cpu_ref::supported_dtypes(Op::Cat, Family::A2).to_vec() {
            for dim in -3..3i64 {
                let k = dim.rem_euclid(3) as usize;
                let mut shapes = [[2usize, 3, 4], [2, 3, 4], [2, 3, 4]];
                shapes[1][k] = 1;
                shapes[2][k] = 0;
                let xs: Vec<Tensor> = shapes
                    .iter()
                    .enumerate()
                    .map(|(i, sh)| rand_tensor(d, sh, i as u64 + 7))
                    .collect();
                let refs: Vec<&Tensor> = vec![&xs[0], &xs[1], &xs[2], &xs[0]];
                let want = cpu_ref::cat(SOC, &refs, dim).unwrap();
                let (_bufs, l) = upload_list(&refs);
                let out = output(d, want.shape());
                cat(&l, dim, &out.t, &s).unwrap();
                assert_eq!(out.buf.read(), want.contiguous_bytes(), "{d} dim {dim}");
            }
        }
    });
}

#[test]
#[serial]
fn cat_of_megabytes_along_every_dim() {
    // Members big enough to share the cores: their copies run together
    // when they write disjoint boxes of `out` (interleaved along rows for
    // the last dim), with a member read twice.
    leak_checked(|| {
        let s = Stream::new();
        for d in [DType::Int8, DType::Float16, DType::Int64] {
            for dim in 0..3i64 {
                let k = dim as usize;
                let mut shapes = [[96usize, 64, 40], [96, 64, 40]];
                shapes[1][k] = 7;
                let xs: Vec<Tensor> = shapes
                    .iter()
                    .enumerate()
                    .map(|(i, sh)| rand_tensor(d, sh, i as u64 + 31))
                    .collect();
                let refs: Vec<&Tensor> = vec![&xs[0], &xs[1], &xs[0]];
                let want = cpu_ref::cat(SOC, &refs, dim).unwrap();
                let (_bufs, l) = upload_list(&refs);
                let out = output(d, want.shape());
                cat(&l, dim, &out.t, &s).unwrap();
                assert!(out.buf.read() == want.contiguous_bytes(), "{d} dim {dim}");
            }
        }
    });
}

#[test]
#[serial]
fn cat_views_everywhere_and_casts() {
    leak_checked(|| {
        let s = Stream::new();
        for d in [DType::Float16, DType::Int64, DType::Complex64, DType::Bool] {
            // A transposed member, a stride-0 (overlapping) member, a plain one.
            let t = rand_tensor(d, &[3, 4], 1)
                .view(&[4, 3], &[1, 4], 0)
                .unwrap();
            let b = rand_tensor(d, &[3], 2).view(&[4, 3], &[0, 1], 0).unwrap();
            let c = rand_tensor(d, &[4, 2], 3);
            let want = cpu_ref::cat(SOC, &[&t, &b, &c], 1).unwrap();
            let (_bufs, l) = upload_list(&[&t, &b, &c]);
            // Out written through a transposed view of a [8, 4] storage.
            let out_buf = Buf::from(&vec![0u8; 32 * d.size()]);
            let out = view(acl_dtype(d), &[4, 8], &[1, 4], 0, out_buf.ptr, 32);
            cat(&l, 1, &out, &s).unwrap();
            let got = Tensor::from_bytes(d, &[8, 4], out_buf.read())
                .unwrap()
                .view(&[4, 8], &[1, 4], 0)
                .unwrap();
            assert_eq!(got.contiguous_bytes(), want.contiguous_bytes(), "{d}");
        }
        // INT32 members into a FLOAT out: a cast.
        let a = rand_tensor(DType::Int32, &[2, 2], 4);
        let want = cpu_ref::cat_cast(SOC, &[&a, &a], 0, DType::Float32)
            .unwrap()
            .unwrap();
        let (_bufs, l) = upload_list(&[&a, &a]);
        let out = output(DType::Float32, &[4, 2]);
        cat(&l, 0, &out.t, &s).unwrap();
        assert_eq!(out.buf.read(), want.contiguous_bytes());
    });
}

#[test]
#[serial]
fn cat_out_meeting_a_member_reads_first() {
    leak_checked(|| {
        let s = Stream::new();
        // One [4] int32 buffer: members are its halves, out is all of it,
        // joined in swapped order.
        let buf = Buf::from(&[1i32, 2, 3, 4].map(i32::to_le_bytes).concat());
        let lo = view(aclDataType::ACL_INT32, &[2], &[1], 0, buf.ptr, 4);
        let hi = view(aclDataType::ACL_INT32, &[2], &[1], 2, buf.ptr, 4);
        let l = list(vec![hi, lo]);
        let out = dense(aclDataType::ACL_INT32, &[4], &buf);
        let op = api().cat().unwrap();
        let p = plan(|w, e| unsafe { (op.get_workspace_size)(l.0, 0, out.0, w, e) }).unwrap();
        assert!(p.ws >= 16, "staged through the workspace");
        // Staged: cannot be made repeatable.
        // SAFETY: a live one-shot executor.
        assert_ne!(
            unsafe { (api().aclSetAclOpExecutorRepeatable.unwrap())(p.ex) },
            0
        );
        assert_eq!(launch(op.run, &p, s.0), 0);
        assert_eq!(s.sync(), 0);
        assert_eq!(buf.read(), [3i32, 4, 1, 2].map(i32::to_le_bytes).concat());
    });
}

#[test]
#[serial]
fn cat_first_phase_errors_in_order() {
    leak_checked(|| {
        let op = api().cat().unwrap();
        let a = rand_tensor(DType::Float32, &[2, 3], 1);
        let (_bufs, l) = upload_list(&[&a, &a]);
        let ob = Buf::new(4 * 12);
        let o = dense(aclDataType::ACL_FLOAT, &[4, 3], &ob);
        let mut ws = 0u64;
        let mut ex = null_mut();
        // SAFETY: deliberately null arguments; valid out-pointers otherwise.
        unsafe {
            assert_eq!(
                (op.get_workspace_size)(std::ptr::null(), 0, o.0, &mut ws, &mut ex),
                ACLNN_ERR_PARAM_NULLPTR
            );
            assert!(
                last_error().contains("argument [tensors]"),
                "{}",
                last_error()
            );
            assert_eq!(
                (op.get_workspace_size)(l.0, 0, null_mut(), &mut ws, &mut ex),
                ACLNN_ERR_PARAM_NULLPTR
            );
            assert_eq!(
                (op.get_workspace_size)(l.0, 0, o.0, null_mut(), &mut ex),
                ACLNN_ERR_PARAM_NULLPTR
            );
            assert_eq!(
                (op.get_workspace_size)(l.0, 0, o.0, &mut ws, null_mut()),
                ACLNN_ERR_PARAM_NULLPTR
            );
            // Not a live list.
            assert_eq!(
                (op.get_workspace_size)(o.0 as *const aclTensorList, 0, o.0, &mut ws, &mut ex),
                ACLNN_ERR_PARAM_INVALID
            );
            // dim out of range, then out's shape.
            assert_eq!(
                (op.get_workspace_size)(l.0, 2, o.0, &mut ws, &mut ex),
                ACLNN_ERR_PARAM_INVALID
            );
            assert!(last_error().contains("dim 2"), "{}", last_error());
            assert_eq!(
                (op.get_workspace_size)(l.0, 1, o.0, &mut ws, &mut ex),
                ACLNN_ERR_PARAM_INVALID
            );
            assert!(last_error().contains("out shape"), "{}", last_error());
            // A FLOAT list into an INT32 out: no cast.
            let oi = dense(aclDataType::ACL_INT32, &[4, 3], &ob);
            assert_eq!(
                (op.get_workspace_size)(l.0, 0, oi.0, &mut ws, &mut ex),
                ACLNN_ERR_PARAM_INVALID
            );
            assert!(last_error().contains("cannot be cast"), "{}", last_error());
        }
        assert!(ex.is_null());
        // Member dtypes that promote to COMPLEX128; a promoted dtype out
        // cannot take; a member of another rank; a bad dtype.
        let c = rand_tensor(DType::Complex64, &[2, 3], 2);
        let f = rand_tensor(DType::Float64, &[2, 3], 3);
        let (_b1, wide) = upload_list(&[&c, &f]);
        let oc = dense(aclDataType::ACL_COMPLEX64, &[4, 3], &Buf::new(8 * 12));
        let i = rand_tensor(DType::Int32, &[2, 3], 2);
        let (_b2, mixed) = upload_list(&[&a, &i]);
        let oi = dense(aclDataType::ACL_INT32, &[4, 3], &ob);
        let (_b3, ranks) = upload_list(&[&a, &rand_tensor(DType::Float32, &[6], 3)]);
        let (_b4, bad) = upload_list(&[&rand_tensor(DType::UInt32, &[2, 3], 4)]);
        for (l, out, what) in [
            (&wide, &oc, "COMPLEX128"),
            (&mixed, &oi, "cannot be cast"),
            (&ranks, &o, "shape"),
            (&bad, &o, "not supported"),
        ] {
            let r = plan(|w, e| unsafe { (op.get_workspace_size)(l.0, 0, out.0, w, e) });
            let (code, msg) = r.expect_err("refused");
            assert_eq!(code, ACLNN_ERR_PARAM_INVALID);
            assert!(msg.contains(what), "{msg}");
        }
    });
}

/// `x` with every element cast to `d` (cpu-ref's Cast).
fn to(x: &Tensor, d: DType) -> Tensor {
    cpu_ref::cast(SOC, x, d).unwrap()
}

/// An int32 tensor of `vals` (shape `[vals.len() / 2, 2]`).
fn ints(vals: &[i32]) -> Tensor {
    let b: Vec<u8> = vals.iter().flat_map(|v| v.to_le_bytes()).collect();
    Tensor::from_bytes(DType::Int32, &[vals.len() / 2, 2], b).unwrap()
}

#[test]
#[serial]
fn cat_and_stack_promote_mixed_dtypes() {
    leak_checked(|| {
        let s = Stream::new();
        // INT32 with FLOAT16 into FLOAT: the members meet as FLOAT16 (the
        // promoted dtype: 2049 becomes 2048), then go to FLOAT.
        let a = ints(&[2049, -3, 65519, 7]);
        let h = rand_tensor(DType::Float16, &[1, 2], 5);
        let want = to(
            &cpu_ref::cat(SOC, &[&to(&a, DType::Float16), &h], 0).unwrap(),
            DType::Float32,
        );
        let (_b, l) = upload_list(&[&a, &h]);
        let out = output(DType::Float32, &[3, 2]);
        cat(&l, 0, &out.t, &s).unwrap();
        assert_eq!(out.buf.read(), want.contiguous_bytes());
        assert_eq!(&out.buf.read()[..4], 2048f32.to_le_bytes());
        // One member with elements (beside an empty one of another dtype):
        // straight to out's dtype, as aclnn_cat.cpp (2049 stays 2049).
        let e = rand_tensor(DType::Float16, &[0, 2], 6);
        let (_b, l) = upload_list(&[&a, &e]);
        let out = output(DType::Float32, &[2, 2]);
        cat(&l, 0, &out.t, &s).unwrap();
        assert_eq!(out.buf.read(), to(&a, DType::Float32).contiguous_bytes());
        // Stack of FLOAT16, FLOAT, FLOAT16 into FLOAT16: promoted FLOAT
        // (the FLOAT16 members go there and back through the workspace).
        let (x, y, z) = (
            rand_tensor(DType::Float16, &[3], 7),
            rand_tensor(DType::Float32, &[3], 8),
            rand_tensor(DType::Float16, &[3], 9),
        );
        let f = |t: &Tensor| to(t, DType::Float32);
        let want = to(
            &cpu_ref::stack(SOC, &[&f(&x), &y, &f(&z)], 1).unwrap(),
            DType::Float16,
        );
        let (_b, l) = upload_list(&[&x, &y, &z]);
        let out = output(DType::Float16, &[3, 3]);
        let op = api().stack().unwrap();
        let p = plan(|w, e| unsafe { (op.get_workspace_size)(l.0, 1, out.t.0, w, e) }).unwrap();
        assert!(
            p.ws >= 2 * 12,
            "two members in the promoted dtype: {}",
            p.ws
        );
        assert_eq!(launch(op.run, &p, s.0), 0);
        assert_eq!(s.sync(), 0);
        assert_eq!(out.buf.read(), want.contiguous_bytes());
        // Out over a member, mixed: a FLOAT16 [4] buffer, its upper half a
        // member (through FLOAT and back), a FLOAT member, out all of it.
        let buf = Buf::from(
            &[1.0f32, 2.0, 3.0, 4.0]
                .map(|v| half::f16::from_f32(v).to_le_bytes())
                .concat(),
        );
        let hi = view(aclDataType::ACL_FLOAT16, &[2], &[1], 2, buf.ptr, 4);
        let g = Tensor::from_bytes(
            DType::Float32,
            &[2],
            [10.5f32, -20.25].map(f32::to_le_bytes).concat(),
        )
        .unwrap();
        let Dev { t: gt, buf: _gb } = upload(&g);
        let l = list(vec![hi, gt]);
        let o = dense(aclDataType::ACL_FLOAT16, &[4], &buf);
        cat(&l, 0, &o, &s).unwrap();
        let want: Vec<u8> = [3.0f32, 4.0, 10.5, -20.25]
            .map(|v| half::f16::from_f32(v).to_le_bytes())
            .concat();
        assert_eq!(buf.read(), want);
    });
}

#[test]
#[serial]
fn cat_dropped_and_empty_members() {
    leak_checked(|| {
        let s = Stream::new();
        // Only 1-D empty members (of a dtype Cat does not take): success,
        // nothing checked, out untouched, workspace 0.
        let z = Tensor::from_bytes(DType::UInt32, &[0], Vec::new()).unwrap();
        let (_bufs, l) = upload_list(&[&z, &z]);
        let ob = Buf::from(&[9u8; 4]);
        let o = dense(aclDataType::ACL_INT8, &[4], &ob);
        let op = api().cat().unwrap();
        let p = plan(|w, e| unsafe { (op.get_workspace_size)(l.0, 7, o.0, w, e) }).unwrap();
        assert_eq!(p.ws, 0);
        assert_eq!(launch(op.run, &p, s.0), 0);
        assert_eq!(s.sync(), 0);
        assert_eq!(ob.read(), [9u8; 4]);
        // A dropped member among others; members empty along dim.
        let a = rand_tensor(DType::Int8, &[2, 2], 5);
        let e = rand_tensor(DType::Int8, &[2, 0], 6);
        let want = cpu_ref::cat(SOC, &[&z, &a, &e, &a], 1).unwrap();
        let (_b2, l2) = upload_list(&[&z, &a, &e, &a]);
        let out = output(DType::Int8, want.shape());
        cat(&l2, 1, &out.t, &s).unwrap();
        assert_eq!(out.buf.read(), want.contiguous_bytes());
        // An empty out: every rule checked, nothing runs.
        let e0 = rand_tensor(DType::Int8, &[0, 2], 7);
        let (_b3, l3) = upload_list(&[&e0, &e0]);
        let out = output(DType::Int8, &[0, 2]);
        cat(&l3, 0, &out.t, &s).unwrap();
        assert!(cat(&l3, 5, &out.t, &s).is_err());
    });
}

#[test]
#[serial]
fn cat_not_on_200i_500_a2_and_no_bf16_on_training() {
    let a = rand_tensor(DType::BFloat16, &[2], 1);
    reinit("Ascend910A");
    leak_checked(|| {
        let (_b, l) = upload_list(&[&a]);
        let o = output(DType::BFloat16, &[2]);
        let s = Stream::new();
        assert_eq!(cat(&l, 0, &o.t, &s).unwrap_err().1, ACLNN_ERR_PARAM_INVALID);
    });
    reinit("Ascend310B1");
    leak_checked(|| {
        let f = rand_tensor(DType::Float32, &[2], 1);
        let (_b, l) = upload_list(&[&f]);
        let o = output(DType::Float32, &[2]);
        let s = Stream::new();
        assert_eq!(
            cat(&l, 0, &o.t, &s).unwrap_err().1,
            ACLNN_ERR_INNER_FIND_KERNEL_ERROR
        );
    });
    reinit(SOC);
}

#[test]
#[serial]
fn cat_repeatable_rebinds_members_and_out() {
    leak_checked(|| {
        let s = Stream::new();
        let a = rand_tensor(DType::Int32, &[2, 2], 1);
        let b = rand_tensor(DType::Int32, &[2, 2], 2);
        let (_bufs, l) = upload_list(&[&a, &b]);
        let out = output(DType::Int32, &[2, 4]);
        let op = api().cat().unwrap();
        let p = plan(|w, e| unsafe { (op.get_workspace_size)(l.0, 1, out.t.0, w, e) }).unwrap();
        // SAFETY: a live executor, right after its first phase.
        assert_eq!(
            unsafe { (api().aclSetAclOpExecutorRepeatable.unwrap())(p.ex) },
            0
        );
        assert_eq!(launch(op.run, &p, s.0), 0);
        assert_eq!(s.sync(), 0);
        assert_eq!(
            out.buf.read(),
            cpu_ref::cat(SOC, &[&a, &b], 1).unwrap().contiguous_bytes()
        );
        // Rebind member 0 to b's data and out to a new buffer.
        let b2 = Buf::from(b.storage_bytes());
        let out2 = output(DType::Int32, &[2, 4]);
        let members = tensor_members(&l);
        // SAFETY: live executor and handles; buffers of the planned sizes.
        unsafe {
            assert_eq!(
                (api().aclSetInputTensorAddr.unwrap())(p.ex, 0, members[0], b2.ptr),
                0
            );
            assert_eq!(
                (api().aclSetOutputTensorAddr.unwrap())(p.ex, 0, out2.t.0, out2.buf.ptr),
                0
            );
        }
        assert_eq!(launch(op.run, &p, s.0), 0);
        assert_eq!(s.sync(), 0);
        assert_eq!(
            out2.buf.read(),
            cpu_ref::cat(SOC, &[&b, &b], 1).unwrap().contiguous_bytes()
        );
        // SAFETY: a repeatable executor, destroyed once.
        assert_eq!(unsafe { (api().aclDestroyAclOpExecutor.unwrap())(p.ex) }, 0);
    });
}

/// The member handles of a list (the simulator's registry).
fn tensor_members(l: &List) -> Vec<*mut aclTensor> {
    npu_sim::tensor_list_members(l.0)
        .unwrap()
        .into_iter()
        .map(|h| h as *mut aclTensor)
        .collect()
}

fn stack(l: &List, dim: i64, out: &T, s: &Stream) -> Result<(), (&'static str, i32, String)> {
    let op = api().stack().unwrap();
    // SAFETY: live handles, valid out-pointers.
    exec(
        |w, e| unsafe { (op.get_workspace_size)(l.0, dim, out.0, w, e) },
        op.run,
        s,
    )
}

#[test]
#[serial]
fn stack_every_dtype_and_dim_matches_cpu_ref() {
    leak_checked(|| {
        let s = Stream::new();
        for d in cpu_ref::supported_dtypes(Op::Stack, Family::A2).to_vec() {
            for dim in -3..3i64 {
                let a = rand_tensor(d, &[2, 3], 1);
                // A transposed member and a stride-0 one.
                let b = rand_tensor(d, &[3, 2], 2)
                    .view(&[2, 3], &[1, 2], 0)
                    .unwrap();
                let c = rand_tensor(d, &[3], 3).view(&[2, 3], &[0, 1], 0).unwrap();
                let want = cpu_ref::stack(SOC, &[&a, &b, &c], dim).unwrap();
                let (_bufs, l) = upload_list(&[&a, &b, &c]);
                let out = output(d, want.shape());
                stack(&l, dim, &out.t, &s).unwrap();
                assert_eq!(out.buf.read(), want.contiguous_bytes(), "{d} dim {dim}");
            }
        }
        // Into a cast out, and 0-D members.
        let z = Tensor::scalar(5i32);
        let want = cpu_ref::stack_cast(SOC, &[&z, &z], 0, DType::Float64).unwrap();
        let (_b, l) = upload_list(&[&z, &z]);
        let out = output(DType::Float64, &[2]);
        stack(&l, 0, &out.t, &s).unwrap();
        assert_eq!(out.buf.read(), want.contiguous_bytes());
    });
}

#[test]
#[serial]
fn stack_first_phase_errors() {
    leak_checked(|| {
        let op = api().stack().unwrap();
        let a = rand_tensor(DType::Float32, &[2, 3], 1);
        let (_bufs, l) = upload_list(&[&a, &a]);
        let ob = Buf::new(4 * 12);
        let o = dense(aclDataType::ACL_FLOAT, &[2, 2, 3], &ob);
        let mut ws = 0u64;
        let mut ex = null_mut();
        // SAFETY: deliberately null arguments; valid out-pointers otherwise.
        unsafe {
            assert_eq!(
                (op.get_workspace_size)(std::ptr::null(), 0, o.0, &mut ws, &mut ex),
                ACLNN_ERR_INNER_NULLPTR
            );
            assert_eq!(
                (op.get_workspace_size)(l.0, 0, null_mut(), &mut ws, &mut ex),
                ACLNN_ERR_INNER_NULLPTR
            );
            assert_eq!(
                (op.get_workspace_size)(l.0, 0, o.0, null_mut(), &mut ex),
                ACLNN_ERR_PARAM_NULLPTR
            );
            assert_eq!(
                (op.get_workspace_size)(l.0, 3, o.0, &mut ws, &mut ex),
                ACLNN_ERR_PARAM_INVALID
            );
            assert_eq!(
                (op.get_workspace_size)(l.0, 2, o.0, &mut ws, &mut ex),
                ACLNN_ERR_PARAM_INVALID
            );
            assert!(last_error().contains("out shape"), "{}", last_error());
        }
        assert!(ex.is_null());
        let b = rand_tensor(DType::Float32, &[3, 2], 2);
        let (_b2, shapes) = upload_list(&[&a, &b]);
        let r = plan(|w, e| unsafe { (op.get_workspace_size)(shapes.0, 0, o.0, w, e) });
        assert_eq!(r.err().unwrap().0, ACLNN_ERR_PARAM_INVALID);
        // A 1-D empty member is stacked, not dropped.
        let z = Tensor::from_bytes(DType::Float32, &[0], Vec::new()).unwrap();
        let (_b3, zl) = upload_list(&[&z, &z]);
        let oz = output(DType::Float32, &[2, 0]);
        let s = Stream::new();
        stack(&zl, 0, &oz.t, &s).unwrap();
    });
}
