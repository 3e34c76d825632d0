//! aclnnIndex through the C ABI: every dtype against cpu-ref, members of
//! both index dtypes broadcast together, empty members (dims kept whole,
//! adjacent or not), negative values, views in and out, a value out of
//! range (a device fault), the first phase's order and codes, empty
//! tensors and products.

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

/// Uploads the members (an empty one over a small buffer of its own).
fn upload_list(xs: &[&Tensor]) -> (Vec<Buf>, List) {
    let (mut bufs, mut ts) = (Vec::new(), Vec::new());
    for x in xs {
        if x.numel() == 0 {
            let buf = Buf::new(64);
            let shape: Vec<i64> = x.shape().iter().map(|&d| d as i64).collect();
            ts.push(view(
                acl_dtype(x.dtype()),
                &shape,
                &contiguous_strides(&shape),
                0,
                buf.ptr,
                1,
            ));
            bufs.push(buf);
        } else {
            let Dev { t, buf } = upload(x);
            bufs.push(buf);
            ts.push(t);
        }
    }
    (bufs, list(ts))
}

fn ifirst(x: &T, l: *const aclTensorList, o: &T) -> Result<Planned, (i32, String)> {
    let op = api().index().unwrap();
    // SAFETY: handles live (or null), valid out-pointers.
    plan(|ws, ex| unsafe { (op.get_workspace_size)(x.0, l, o.0, ws, ex) })
}

fn irun(x: &T, l: &List, o: &T, st: &Stream) -> Result<(), (&'static str, i32, String)> {
    let op = api().index().unwrap();
    // SAFETY: live handles, valid out-pointers.
    exec(
        |ws, ex| unsafe { (op.get_workspace_size)(x.0, l.0, o.0, ws, ex) },
        op.run,
        st,
    )
}

/// Both phases with the synchronisation done here, before the workspace
/// is freed (`common::launch` would take a fault at its own
/// synchronisation): the fault's status and message.
fn irun_fault(x: &T, l: &List, o: &T, st: &Stream) -> (i32, String) {
    let op = api().index().unwrap();
    // SAFETY: live handles, valid out-pointers.
    let p = plan(|ws, ex| unsafe { (op.get_workspace_size)(x.0, l.0, o.0, ws, ex) }).unwrap();
    let ws = Buf::new(p.ws.max(1) as usize);
    // SAFETY: executor from the first phase; workspace of the asked size.
    assert_eq!(unsafe { (op.run)(ws.ptr, p.ws, p.ex, st.0) }, ACL_SUCCESS);
    let c = st.sync();
    let msg = last_error();
    drop(ws);
    (c, msg)
}

fn i64s(shape: &[usize], v: &[i64]) -> Tensor {
    Tensor::from_slice(shape, v).unwrap()
}

fn i32s(shape: &[usize], v: &[i32]) -> Tensor {
    Tensor::from_slice(shape, v).unwrap()
}

#[test]
#[serial]
fn the_pages_sample() {
    leak_checked(|| {
        let st = Stream::new();
        let x =
            Tensor::from_slice(&[3, 4], &(1..=12).map(|v| v as f32).collect::<Vec<_>>()).unwrap();
        let gx = upload(&x);
        let (_b, l) = upload_list(&[&i64s(&[1], &[0]), &i64s(&[1], &[2])]);
        let out = output(DType::Float32, &[1]);
        irun(&gx.t, &l, &out.t, &st).unwrap();
        assert_eq!(out.buf.read(), 3.0f32.to_le_bytes());
    });
}

#[test]
#[serial]
fn every_dtype_matches_cpu_ref_through_views() {
    leak_checked(|| {
        let st = Stream::new();
        let mut seed = 300;
        let none = i64s(&[0], &[]);
        for &d in cpu_ref::supported_dtypes(Op::Index, Family::A2) {
            seed += 1;
            // self: a transposed [3, 4, 2] view of a [2, 4, 3] tensor.
            let x = rand_tensor(d, &[2, 4, 3], seed)
                .view(&[3, 4, 2], &[1, 3, 12], 0)
                .unwrap();
            let gx = upload(&x);
            let strided = i32s(&[4], &[1, 9, -2, 9]).view(&[2], &[2], 0).unwrap();
            let cases: Vec<Vec<&Tensor>> = vec![
                vec![&strided],
                vec![&none, &strided],
                vec![&none, &none, &strided],
            ];
            let a = i64s(&[2, 1], &[0, -1]);
            let b = i32s(&[3], &[3, 0, -4]);
            let c = i64s(&[], &[1]);
            let mut cases = cases;
            cases.push(vec![&a, &b]);
            cases.push(vec![&a, &b, &c]);
            cases.push(vec![&a, &none, &c]);
            cases.push(vec![&none]);
            for members in cases {
                let want = cpu_ref::index(SOC, &x, &members).unwrap();
                let (_bufs, l) = upload_list(&members);
                let out = output(d, want.shape());
                irun(&gx.t, &l, &out.t, &st).unwrap();
                let shapes: Vec<_> = members.iter().map(|m| m.shape().to_vec()).collect();
                assert_eq!(out.buf.read(), want.contiguous_bytes(), "{d} {shapes:?}");
            }
            // A strided out.
            let members = [&a, &b];
            let want = cpu_ref::index(SOC, &x, &members).unwrap();
            assert_eq!(want.shape(), &[2, 3, 2]);
            let (_bufs, l) = upload_list(&members);
            let buf = Buf::from(&vec![0u8; 12 * d.size()]);
            let o = view(acl_dtype(d), &[2, 3, 2], &[1, 2, 6], 0, buf.ptr, 12);
            irun(&gx.t, &l, &o, &st).unwrap();
            let got = Tensor::from_bytes(d, &[12], buf.read())
                .unwrap()
                .view(&[2, 3, 2], &[1, 2, 6], 0)
                .unwrap();
            assert_eq!(got.contiguous_bytes(), want.contiguous_bytes(), "{d} views");
        }
        // A 0-D self.
        let x = Tensor::scalar(5i32);
        let members = [&i64s(&[3], &[0, -1, 0])];
        let want = cpu_ref::index(SOC, &x, &members).unwrap();
        let gx = upload(&x);
        let (_bufs, l) = upload_list(&members);
        let out = output(DType::Int32, want.shape());
        irun(&gx.t, &l, &out.t, &st).unwrap();
        assert_eq!(out.buf.read(), want.contiguous_bytes());
    });
}

#[test]
#[serial]
fn first_phase_errors_in_cann_order_faults_and_products() {
    leak_checked(|| {
        let st = Stream::new();
        let null = T(std::ptr::null_mut());
        let x = upload(&rand_tensor(DType::Float32, &[3, 4], 1));
        let o = output(DType::Float32, &[2, 4]);
        let (_b, l) = upload_list(&[&i64s(&[2], &[0, 2])]);
        assert!(ifirst(&x.t, l.0, &o.t).is_ok_and(|p| {
            // A one-shot executor that is never run leaks: run it.
            launch(api().index().unwrap().run, &p, st.0) == ACL_SUCCESS
        }));
        for (k, (a, b, c)) in [
            (&null, l.0 as *const aclTensorList, &o.t),
            (&x.t, l.0, &null),
            (&x.t, std::ptr::null(), &o.t),
        ]
        .into_iter()
        .enumerate()
        {
            let e = ifirst(a, b, c).unwrap_err();
            assert_eq!(e.0, ACLNN_ERR_PARAM_NULLPTR, "{k}");
            assert!(e.1.contains(["self", "out", "indices"][k]), "{}", e.1);
        }
        let bad = |members: &[&Tensor], xs: &[usize], od: DType, os: &[usize], want: &str| {
            let x = upload(&rand_tensor(DType::Float32, xs, 2));
            let (_b, l) = upload_list(members);
            let o = output(od, os);
            let e = ifirst(&x.t, l.0, &o.t).unwrap_err();
            assert_eq!(e.0, ACLNN_ERR_PARAM_INVALID, "{want}");
            assert!(e.1.contains(want), "{want}: {}", e.1);
        };
        let i = i64s(&[2], &[0, 1]);
        bad(&[&i], &[3, 4], DType::Int32, &[2, 4], "differs");
        let f = Tensor::from_slice(&[1], &[0f32]).unwrap();
        bad(
            &[&f],
            &[3, 4],
            DType::Float32,
            &[1, 4],
            "INT32, INT64 or BOOL",
        );
        let m = Tensor::from_bytes(DType::Bool, &[4], vec![1, 0, 1, 1]).unwrap();
        bad(
            &[&m],
            &[3, 4],
            DType::Float32,
            &[3, 4],
            "the shape of the dims it covers",
        );
        bad(
            &[&i, &i, &i],
            &[3, 4],
            DType::Float32,
            &[2],
            "3 index tensors",
        );
        let j = i64s(&[3], &[0, 1, 2]);
        bad(
            &[&i, &j],
            &[3, 4],
            DType::Float32,
            &[2],
            "does not broadcast",
        );
        let i8d = i64s(&[1, 1, 1, 1, 1, 1, 1, 1], &[0]);
        bad(&[&i8d], &[3, 4], DType::Float32, &[1; 9], "rank 9");
        bad(&[&i], &[3, 4], DType::Float32, &[2, 3], "must be [2, 4]");
        // The BF16 rule of 200I/500 A2 and COMPLEX64 nowhere.
        let c = upload(&rand_tensor(DType::Complex64, &[3], 1));
        let co = output(DType::Complex64, &[2]);
        let (_b2, l2) = upload_list(&[&i]);
        let e = ifirst(&c.t, l2.0, &co.t).unwrap_err();
        assert!(e.1.contains("self has data type"), "{}", e.1);
        // Values out of range: a fault at synchronisation.
        for vals in [[0i64, 3], [-4, 0]] {
            let (_b, l) = upload_list(&[&i64s(&[2], &vals)]);
            let out = output(DType::Float32, &[2, 4]);
            let e = irun_fault(&x.t, &l, &out.t, &st);
            assert_ne!(e.0, ACL_SUCCESS, "{e:?}");
            assert!(e.1.contains("index out of range"), "{}", e.1);
        }
        // An empty self or output: nothing planned.
        let x0 = upload(&rand_tensor(DType::Float32, &[3, 0], 1));
        let o0 = output(DType::Float32, &[2, 0]);
        let (_b3, l3) = upload_list(&[&i]);
        let p = ifirst(&x0.t, l3.0, &o0.t).unwrap();
        assert_eq!(p.ws, 0);
        assert_eq!(launch(api().index().unwrap().run, &p, st.0), ACL_SUCCESS);
        // An out over self: refused.
        let e = ifirst(&x.t, l3.0, &x.t).unwrap_err();
        assert!(e.1.contains("shape") || e.1.contains("shares"), "{}", e.1);
    });
    reinit("Ascend310B1");
    leak_checked(|| {
        let st = Stream::new();
        let x = upload(&rand_tensor(DType::BFloat16, &[3, 2], 3));
        let members = [&i64s(&[1], &[2])];
        let (_b, l) = upload_list(&members);
        let out = output(DType::BFloat16, &[1, 2]);
        irun(&x.t, &l, &out.t, &st).unwrap();
        let want = cpu_ref::index(
            "Ascend310B1",
            &rand_tensor(DType::BFloat16, &[3, 2], 3),
            &members,
        )
        .unwrap();
        assert_eq!(out.buf.read(), want.contiguous_bytes());
    });
    reinit("Ascend910A");
    {
        let x = upload(&rand_tensor(DType::BFloat16, &[3, 2], 3));
        let (_b, l) = upload_list(&[&i64s(&[1], &[2])]);
        let out = output(DType::BFloat16, &[1, 2]);
        let e = ifirst(&x.t, l.0, &out.t).unwrap_err();
        assert_eq!(e.0, ACLNN_ERR_PARAM_INVALID);
    }
    reinit(SOC);
}

#[test]
#[serial]
fn a_repeatable_executor_rebinds_a_member_by_its_list_position() {
    leak_checked(|| {
        let st = Stream::new();
        let x = rand_tensor(DType::Float32, &[3, 4], 5);
        let gx = upload(&x);
        let (rows, cols) = (i64s(&[2], &[0, 2]), i64s(&[2], &[1, 3]));
        let (_bufs, l) = upload_list(&[&rows, &cols]);
        let out = output(DType::Float32, &[2]);
        let op = api().index().unwrap();
        // SAFETY: live handles, valid out-pointers.
        let p =
            plan(|w, e| unsafe { (op.get_workspace_size)(gx.t.0, l.0, out.t.0, w, e) }).unwrap();
        // SAFETY: a live executor, right after its first phase.
        assert_eq!(
            unsafe { (api().aclSetAclOpExecutorRepeatable.unwrap())(p.ex) },
            0
        );
        assert_eq!(launch(op.run, &p, st.0), 0);
        assert_eq!(st.sync(), 0);
        assert_eq!(
            out.buf.read(),
            cpu_ref::index(SOC, &x, &[&rows, &cols])
                .unwrap()
                .contiguous_bytes()
        );
        // Input 2 is the list's member 1 (input 0 is self).
        let cols2 = i64s(&[2], &[0, -1]);
        let b2 = Buf::from(cols2.storage_bytes());
        let member = npu_sim::tensor_list_members(l.0).unwrap()[1] as *mut aclTensor;
        // SAFETY: live executor and handle; a buffer of the planned size.
        assert_eq!(
            unsafe { (api().aclSetInputTensorAddr.unwrap())(p.ex, 2, member, b2.ptr) },
            0
        );
        assert_eq!(launch(op.run, &p, st.0), 0);
        assert_eq!(st.sync(), 0);
        assert_eq!(
            out.buf.read(),
            cpu_ref::index(SOC, &x, &[&rows, &cols2])
                .unwrap()
                .contiguous_bytes()
        );
        // SAFETY: a repeatable executor, destroyed once.
        assert_eq!(unsafe { (api().aclDestroyAclOpExecutor.unwrap())(p.ex) }, 0);
    });
}

#[test]
#[serial]
fn bool_masks_match_cpu_ref_and_a_wrong_count_faults() {
    leak_checked(|| {
        let st = Stream::new();
        let x = rand_tensor(DType::Float32, &[3, 4, 2], 71);
        let gx = upload(&x);
        let mask2 = Tensor::from_bytes(DType::Bool, &[3, 4], {
            let mut v = vec![0u8; 12];
            for k in [0, 3, 5, 6, 11] {
                v[k] = 1;
            }
            v
        })
        .unwrap();
        let mask1 = Tensor::from_bytes(DType::Bool, &[4], vec![0, 1, 0, 1]).unwrap();
        let rows = i64s(&[2], &[2, -1]);
        let empty = i64s(&[0], &[]);
        // A mask over the leading dims; a mask after an empty member; a
        // mask with an integer member (broadcast); a transposed mask view.
        let mask2t = mask2.to_contiguous().view(&[4, 3], &[1, 4], 0).unwrap();
        let xt = x.view(&[4, 3, 2], &[2, 8, 1], 0).unwrap();
        for (xx, members) in [
            (&x, vec![&mask2]),
            (&x, vec![&empty, &mask1]),
            (&x, vec![&rows, &mask1]),
            (&xt, vec![&mask2t]),
        ] {
            let want = cpu_ref::index(SOC, xx, &members).unwrap();
            let gxx = upload(xx);
            let (_b, l) = upload_list(&members);
            let out = output(DType::Float32, want.shape());
            irun(&gxx.t, &l, &out.t, &st).unwrap();
            assert_eq!(
                out.buf.read(),
                want.contiguous_bytes(),
                "{:?}",
                want.shape()
            );
        }
        // out sized for another count: a device fault at run time.
        let (_b, l) = upload_list(&[&mask2]);
        let out = output(DType::Float32, &[4, 2]);
        let (code, msg) = irun_fault(&gx.t, &l, &out.t, &st);
        assert_eq!(code, ACL_ERROR_RT_AICORE_EXCEPTION, "{msg}");
        assert!(
            msg.contains("5 set elements") && msg.contains("sized for 4"),
            "{msg}"
        );
        // No set element: out is empty, nothing runs.
        let none = Tensor::from_bytes(DType::Bool, &[4], vec![0; 4]).unwrap();
        let (_b, l) = upload_list(&[&empty, &none]);
        let out = output(DType::Float32, &[3, 0, 2]);
        irun(&gx.t, &l, &out.t, &st).unwrap();
        // A 0-D mask is refused.
        let scalar = Tensor::from_bytes(DType::Bool, &[], vec![1]).unwrap();
        let (_b, l) = upload_list(&[&scalar]);
        let out = output(DType::Float32, &[1, 3, 4, 2]);
        let e = ifirst(&gx.t, l.0, &out.t).unwrap_err();
        assert_eq!(e.0, ACLNN_ERR_PARAM_INVALID, "{}", e.1);
    });
}
