//! Every operator on every dtype the product supports, through the C ABI,
//! against cpu-ref, bit for bit; views as inputs and outputs.

mod common;

use cann_sys::*;
use common::*;
use cpu_ref::{DType, Family, Op, SampleMode, SampledSliceParams, Scalar, Tensor};
use serial_test::serial;

const SOC: &str = "Ascend910B3";

fn rand_tensor(d: DType, shape: &[usize], seed: u64) -> Tensor {
    let n: usize = shape.iter().product();
    Tensor::from_bytes(d, shape, data(d, n, seed)).unwrap()
}

/// A transposed (non-contiguous) view of a random [a, b] storage: shape [b, a].
fn transposed(d: DType, a: usize, b: usize, seed: u64) -> Tensor {
    rand_tensor(d, &[a, b], seed)
        .view(&[b, a], &[1, b], 0)
        .unwrap()
}

fn dtypes(op: Op) -> Vec<DType> {
    cpu_ref::supported_dtypes(op, Family::A2).to_vec()
}

#[test]
#[serial]
fn slice_every_dtype_matches_cpu_ref() {
    leak_checked(|| {
        let s = Stream::new();
        let cases: &[(i64, i64, i64, i64)] = &[
            (0, 0, 2, 1),
            (1, -3, i64::MAX, 2),
            (2, 1, -1, 3),
            (-1, i64::MIN, 4, 1),
            (0, 5, 1, 1), // empty result
            (1, 0, 5, 7),
        ];
        for d in dtypes(Op::Slice) {
            for (k, &(dim, start, end, step)) in cases.iter().enumerate() {
                let x = rand_tensor(d, &[4, 5, 6], k as u64 + 1);
                let want = cpu_ref::slice(SOC, &x, dim, start, end, step).unwrap();
                let dx = upload(&x);
                let out = output(d, want.shape());
                slice(&dx.t, dim, start, end, step, &out.t, &s).unwrap();
                assert_eq!(out.buf.read(), want.contiguous_bytes(), "{d} case {k}");
            }
        }
    });
}

#[test]
#[serial]
fn slice_of_views_into_views() {
    leak_checked(|| {
        let s = Stream::new();
        for d in dtypes(Op::Slice) {
            // Non-contiguous input: a transposed view.
            let x = transposed(d, 6, 7, 3);
            let want = cpu_ref::slice(SOC, &x, 1, 1, 6, 2).unwrap();
            let dx = upload(&x);
            // Non-contiguous output: every other element of a larger buffer,
            // the rest of which must stay untouched.
            let (r, c) = (want.shape()[0] as i64, want.shape()[1] as i64);
            let es = d.size();
            let sentinel = vec![0xA5u8; (r * c * 2) as usize * es];
            let big = Buf::from(&sentinel);
            let out = view(acl_dtype(d), &[r, c], &[c * 2, 2], 1, big.ptr, r * c * 2);
            slice(&dx.t, 1, 1, 6, 2, &out, &s).unwrap();
            let got = big.read();
            let want_bytes = want.contiguous_bytes();
            for i in 0..(r * c) as usize {
                let slot = 1 + 2 * i;
                assert_eq!(
                    &got[slot * es..(slot + 1) * es],
                    &want_bytes[i * es..(i + 1) * es],
                    "{d} element {i}"
                );
                assert_eq!(
                    &got[(slot - 1) * es..slot * es],
                    &sentinel[..es],
                    "{d} gap {i} was written"
                );
            }
        }
    });
}

#[test]
#[serial]
fn slice_large_split_across_cores_matches() {
    leak_checked(|| {
        // Big enough for the kernels to split blocks across threads.
        let s = Stream::new();
        let x = rand_tensor(DType::Float32, &[300, 1000], 9);
        for (dim, start, end, step) in [(0, 1, 299, 1), (1, 0, 1000, 3), (0, 0, 300, 2)] {
            let want = cpu_ref::slice(SOC, &x, dim, start, end, step).unwrap();
            let dx = upload(&x);
            let out = output(DType::Float32, want.shape());
            slice(&dx.t, dim, start, end, step, &out.t, &s).unwrap();
            assert_eq!(out.buf.read(), want.contiguous_bytes());
        }
    });
}

fn index_tensor(values: &[i64], wide: bool) -> Tensor {
    if wide {
        Tensor::from_slice(&[values.len()], values).unwrap()
    } else {
        let v: Vec<i32> = values.iter().map(|&x| x as i32).collect();
        Tensor::from_slice(&[v.len()], &v).unwrap()
    }
}

#[test]
#[serial]
fn index_select_every_dtype_matches_cpu_ref() {
    leak_checked(|| {
        let s = Stream::new();
        for d in dtypes(Op::IndexSelect) {
            for dim in -3..3i64 {
                for wide in [false, true] {
                    let x = rand_tensor(d, &[3, 4, 5], (dim + 10) as u64);
                    let n = x.shape()[dim.rem_euclid(3) as usize] as i64;
                    let idx = index_tensor(&[n - 1, 0, n - 1, 1], wide);
                    let want = cpu_ref::index_select(SOC, &x, dim, &idx).unwrap();
                    let (dx, di) = (upload(&x), upload(&idx));
                    let out = output(d, want.shape());
                    index_select(&dx.t, dim, &di.t, &out.t, &s).unwrap();
                    assert_eq!(
                        out.buf.read(),
                        want.contiguous_bytes(),
                        "{d} dim {dim} wide {wide}"
                    );
                }
            }
        }
    });
}

#[test]
#[serial]
fn index_select_views_everywhere() {
    leak_checked(|| {
        let s = Stream::new();
        for d in [DType::Float16, DType::Int64, DType::Complex128, DType::Bool] {
            let x = transposed(d, 5, 4, 4); // [4, 5], non-contiguous
                                            // A strided index: every other element of [2, 9, 0, 9, 4, 9].
            let idx_store = Tensor::from_slice(&[6], &[2i64, 9, 0, 9, 4, 9]).unwrap();
            let idx = idx_store.view(&[3], &[2], 0).unwrap();
            let want = cpu_ref::index_select(SOC, &x, 1, &idx).unwrap();
            let (dx, di) = (upload(&x), upload(&idx));
            // Output written through a transposed view.
            let out_buf = Buf::from(&vec![0u8; 12 * d.size()]);
            let out = view(acl_dtype(d), &[4, 3], &[1, 4], 0, out_buf.ptr, 12);
            index_select(&dx.t, 1, &di.t, &out, &s).unwrap();
            let got = Tensor::from_bytes(d, &[3, 4], out_buf.read())
                .unwrap()
                .view(&[4, 3], &[1, 4], 0)
                .unwrap();
            assert_eq!(got.contiguous_bytes(), want.contiguous_bytes(), "{d}");
        }
    });
}

#[test]
#[serial]
fn index_select_zero_d_and_empty() {
    leak_checked(|| {
        let s = Stream::new();
        // 0-D self: index of one element, 0-D out.
        let x = Tensor::scalar(7.5f32);
        let idx = Tensor::scalar(0i64);
        let want = cpu_ref::index_select(SOC, &x, 0, &idx).unwrap();
        let (dx, di) = (upload(&x), upload(&idx));
        let out = output(DType::Float32, &[]);
        index_select(&dx.t, -1, &di.t, &out.t, &s).unwrap();
        assert_eq!(out.buf.read(), want.contiguous_bytes());
        // Empty index: success, workspace 0, nothing run.
        let x = rand_tensor(DType::Int32, &[3, 4], 1);
        let empty_idx = Tensor::from_slice::<i64>(&[0], &[]).unwrap();
        let (dx, di) = (upload(&x), upload(&empty_idx));
        let out = output(DType::Int32, &[0, 4]);
        index_select(&dx.t, 0, &di.t, &out.t, &s).unwrap();
    });
}

#[test]
#[serial]
fn inplace_copy_views_and_broadcast_match_cpu_ref() {
    leak_checked(|| {
        let s = Stream::new();
        for d in dtypes(Op::IndexSelect) {
            // Transposed source into a contiguous destination.
            let src = transposed(d, 3, 5, 2);
            let dsrc = upload(&src);
            let out = output(d, &[5, 3]);
            inplace_copy(&out.t, &dsrc.t, &s).unwrap();
            assert_eq!(out.buf.read(), src.contiguous_bytes(), "{d}");
            // Broadcast of a row into every row.
            let row = rand_tensor(d, &[3], 5);
            let drow = upload(&row);
            let out = output(d, &[4, 3]);
            inplace_copy(&out.t, &drow.t, &s).unwrap();
            assert_eq!(
                out.buf.read(),
                row.contiguous_bytes().repeat(4),
                "{d} broadcast"
            );
        }
    });
}

#[test]
#[serial]
fn inplace_copy_casts() {
    leak_checked(|| {
        let s = Stream::new();
        let vals = [
            0.0f32,
            -0.0,
            1.5,
            -2.25,
            65504.0,
            1e-8,
            f32::INFINITY,
            70000.0,
        ];
        let src = Tensor::from_slice(&[vals.len()], &vals).unwrap();
        let dsrc = upload(&src);
        let out = output(DType::Float16, &[vals.len()]);
        inplace_copy(&out.t, &dsrc.t, &s).unwrap();
        let want: Vec<u8> = vals
            .iter()
            .flat_map(|v| half::f16::from_f32(*v).to_bits().to_le_bytes())
            .collect();
        assert_eq!(
            out.buf.read(),
            want,
            "f32 -> f16 rounds like the half crate"
        );
        let out = output(DType::BFloat16, &[vals.len()]);
        inplace_copy(&out.t, &dsrc.t, &s).unwrap();
        let want: Vec<u8> = vals
            .iter()
            .flat_map(|v| half::bf16::from_f32(*v).to_bits().to_le_bytes())
            .collect();
        assert_eq!(out.buf.read(), want, "f32 -> bf16");
        let out = output(DType::Int32, &[vals.len()]);
        inplace_copy(&out.t, &dsrc.t, &s).unwrap();
        let want: Vec<u8> = [0i32, 0, 1, -2, 65504, 0, i32::MAX, 70000]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        assert_eq!(out.buf.read(), want, "f32 -> i32 truncates and saturates");
    });
}

#[test]
#[serial]
fn inplace_copy_onto_overlapping_memory_is_staged() {
    leak_checked(|| {
        // dst and src share a buffer: shift a row of 8 by one element.
        let s = Stream::new();
        let host: Vec<u8> = (0..9u8).collect();
        let b = Buf::from(&host);
        let dst = view(aclDataType::ACL_UINT8, &[8], &[1], 1, b.ptr, 9);
        let src = view(aclDataType::ACL_UINT8, &[8], &[1], 0, b.ptr, 9);
        inplace_copy(&dst, &src, &s).unwrap();
        assert_eq!(b.read(), vec![0, 0, 1, 2, 3, 4, 5, 6, 7]);
    });
}

/// ConstantPadNd with one cell each side equals cpu-ref's sampled slice in
/// FILL mode starting at -1 (the composition the safe layer uses).
#[test]
#[serial]
fn constant_pad_every_dtype_matches_sampled_slice_fill() {
    leak_checked(|| {
        let s = Stream::new();
        for d in dtypes(Op::IndexSelect) {
            let x = transposed(d, 3, 4, 6); // [4, 3] view
            let (fill, fill_bytes, fill_dtype) = match d {
                DType::Bool => (Scalar::Bool(true), vec![1u8], aclDataType::ACL_BOOL),
                DType::Complex64 | DType::Complex128 => (
                    Scalar::Float(2.0),
                    2.0f64.to_le_bytes().to_vec(),
                    aclDataType::ACL_DOUBLE,
                ),
                _ if d.is_float() => (
                    Scalar::Float(1.5),
                    1.5f64.to_le_bytes().to_vec(),
                    aclDataType::ACL_DOUBLE,
                ),
                _ => (
                    Scalar::Int(7),
                    7i64.to_le_bytes().to_vec(),
                    aclDataType::ACL_INT64,
                ),
            };
            let p = SampledSliceParams::new(&[-1, -2], &[6, 5], &[1, 1], SampleMode::Fill(fill));
            let want = cpu_ref::sampled_slice(SOC, &x, &p).unwrap();
            let dx = upload(&x);
            let args = PadArgs::new(&[2, 0, 1, 1], &fill_bytes, fill_dtype);
            let out = output(d, &[6, 5]);
            constant_pad(&dx.t, &args, &out.t, &s).unwrap();
            assert_eq!(out.buf.read(), want.contiguous_bytes(), "{d}");
        }
    });
}

/// Outputs past 64 KiB write only the border around the copied box
/// (`kernels::border`): ranks 1 to 4, crops and pads, a transposed input
/// and a box touching a side, each against cpu-ref's FILL window.
#[test]
#[serial]
fn constant_pad_of_big_outputs_writes_the_border() {
    leak_checked(|| {
        let s = Stream::new();
        let cases: [(&[usize], &[i64], &[i64]); 5] = [
            // (input shape, window start, window size)
            (&[70_000], &[-3], &[70_010]),
            (&[300, 200], &[-5, 7], &[310, 250]),
            (&[40, 30, 50], &[-1, -2, 0], &[44, 31, 60]),
            (&[6, 20, 30, 40], &[0, -3, 5, -1], &[8, 24, 20, 44]),
            (&[256, 256], &[0, 0], &[260, 256]),
        ];
        for (k, (shape, start, size)) in cases.iter().enumerate() {
            let d = [DType::Int8, DType::Float16, DType::Float32, DType::Int64][k % 4];
            let x = rand_tensor(d, shape, 40 + k as u64);
            let p = SampledSliceParams::new(
                start,
                size,
                &vec![1; shape.len()],
                SampleMode::Fill(Scalar::Int(3)),
            );
            let want = cpu_ref::sampled_slice(SOC, &x, &p).unwrap();
            // pad: (before, after) of the last dim first.
            let pads: Vec<i64> = start
                .iter()
                .zip(size.iter().zip(shape.iter()))
                .rev()
                .flat_map(|(&st, (&n, &e))| [-st, st + n - e as i64])
                .collect();
            let dx = upload(&x);
            let args = PadArgs::new(&pads, &3i64.to_le_bytes(), aclDataType::ACL_INT64);
            let oshape: Vec<usize> = size.iter().map(|&n| n as usize).collect();
            let out = output(d, &oshape);
            constant_pad(&dx.t, &args, &out.t, &s).unwrap();
            assert!(
                out.buf.read() == want.contiguous_bytes(),
                "{d} {shape:?} {start:?} {size:?}"
            );
        }
    });
}

#[test]
#[serial]
fn constant_pad_negative_pads_crop() {
    leak_checked(|| {
        let s = Stream::new();
        let x = rand_tensor(DType::Int16, &[4, 5], 8);
        // Crop one column on the left, pad two on the right; crop a row on top.
        let p =
            SampledSliceParams::new(&[1, 1], &[3, 6], &[1, 1], SampleMode::Fill(Scalar::Int(-1)));
        let want = cpu_ref::sampled_slice(SOC, &x, &p).unwrap();
        let dx = upload(&x);
        let args = PadArgs::new(
            &[-1, 2, -1, 0],
            &(-1i16).to_le_bytes(),
            aclDataType::ACL_INT16,
        );
        let out = output(DType::Int16, &[3, 6]);
        constant_pad(&dx.t, &args, &out.t, &s).unwrap();
        assert_eq!(out.buf.read(), want.contiguous_bytes());
    });
}

#[test]
#[serial]
fn every_dtype_round_trips_through_device_memory() {
    leak_checked(|| {
        for d in DType::ALL {
            let bytes = data(d, 33, 4);
            let b = Buf::from(&bytes);
            assert_eq!(b.read(), bytes);
        }
    });
}
