//! Product rules across all operators: availability, dtypes, unknown
//! SoC names and the validation order, through the public API only.

use cpu_ref::{
    add, as_strided, as_strided_aclnn, cast, cat, circular_pad2d, circular_pad3d, embedding,
    expand, fill_scalar, flip, gather, gather_nd, gather_v2, index_copy, index_select,
    masked_select, mul, permute, reflection_pad1d, reflection_pad2d, reflection_pad3d, repeat,
    replication_pad1d, replication_pad2d, replication_pad3d, roll, sampled_slice, slice, slice_v2,
    slice_v3, split_tensor, split_with_size, stack, strided_slice_assign_v2, subtensor, take, tril,
    triu, view_copy, zero, DType, Family, RefError, SampleMode, SampledSliceParams, Scalar, Tensor,
    Window,
};

const OPS: [&str; 42] = [
    "slice",
    "index_select",
    "as_strided",
    "sampled_slice",
    "subtensor",
    "add",
    "mul",
    "cat",
    "stack",
    "split_tensor",
    "split_with_size",
    "fill_scalar",
    "zero",
    "cast",
    "tril",
    "triu",
    "permute",
    "flip",
    "roll",
    "expand",
    "repeat",
    "slice_v2",
    "slice_v3",
    "as_strided_aclnn",
    "view_copy",
    "strided_slice_assign_v2",
    "reflection_pad1d",
    "reflection_pad2d",
    "reflection_pad3d",
    "replication_pad1d",
    "replication_pad2d",
    "replication_pad3d",
    "circular_pad2d",
    "circular_pad3d",
    "embedding",
    "gather_v2",
    "gather",
    "take",
    "index_copy",
    "gather_nd",
    "masked_select",
    "index",
];

/// Runs `op` on `x` (shape [2, 2]) with valid parameters.
fn call(op: &str, soc: &str, x: &Tensor) -> Result<Tensor, RefError> {
    let index = Tensor::from_slice(&[1], &[1i64]).unwrap();
    let x3 = Tensor::from_bytes(x.dtype(), &[1, 2, 2], x.contiguous_bytes()).unwrap();
    let x4 = Tensor::from_bytes(x.dtype(), &[1, 1, 2, 2], x.contiguous_bytes()).unwrap();
    match op {
        "slice" => slice(soc, x, 0, 0, 1, 1),
        "index_select" => index_select(soc, x, 0, &index),
        "as_strided" => as_strided(soc, x, &[2], &[1], &[0]),
        "sampled_slice" => sampled_slice(
            soc,
            x,
            &SampledSliceParams::new(&[0, 0], &[1, 2], &[1, 1], SampleMode::Wrap),
        ),
        "subtensor" => subtensor(soc, x, &[1], 1),
        "add" => add(soc, x, x, Scalar::Int(1)),
        "mul" => mul(soc, x, x),
        "cat" => cat(soc, &[x, x], 1),
        "stack" => stack(soc, &[x, x], 1),
        "split_tensor" => split_tensor(soc, x, 1, 0).map(|v| v[0].clone()),
        "split_with_size" => split_with_size(soc, x, &[1, 1], 0).map(|v| v[0].clone()),
        "fill_scalar" => fill_scalar(soc, x, Scalar::Bool(true)),
        "zero" => zero(soc, x),
        "cast" => cast(soc, x, x.dtype()),
        "tril" => tril(soc, x, 0),
        "triu" => triu(soc, x, -1),
        "permute" => permute(soc, x, &[1, 0]),
        "flip" => flip(soc, x, &[0]),
        "roll" => roll(soc, x, &[1], &[0]),
        "expand" => expand(soc, x, &[3, 2, 2]),
        "repeat" => repeat(soc, x, &[2, 1, 3]),
        "slice_v2" => slice_v2(soc, x, &[0, -1], &[1, 2], &[1, 0], &[1, 1]),
        "slice_v3" => slice_v3(soc, x, &[1, 0], &[1, 2]),
        "as_strided_aclnn" => as_strided_aclnn(soc, x, &[2, 2], &[1, 1], 1),
        "view_copy" => {
            let w = Window {
                size: &[2],
                stride: &[1],
                offset: 0,
            };
            view_copy(soc, x, w, x, w)
        }
        "strided_slice_assign_v2" => {
            let v = Tensor::from_bytes(
                x.dtype(),
                &[1, 2],
                x.contiguous_bytes()[..2 * x.dtype().size()].to_vec(),
            )
            .unwrap();
            strided_slice_assign_v2(soc, x, &v, &[1], &[2], &[1], None)
        }
        "embedding" => embedding(soc, x, &index),
        "gather_v2" => gather_v2(soc, x, 1, &index),
        "take" => take(soc, x, &index),
        "gather_nd" => gather_nd(soc, x, &index, false),
        "index" => cpu_ref::index(soc, x, &[&index]),
        "masked_select" => masked_select(
            soc,
            x,
            &Tensor::from_bytes(DType::Bool, &[2], vec![1, 0]).unwrap(),
        ),
        "index_copy" => index_copy(
            soc,
            x,
            0,
            &index,
            &Tensor::from_bytes(
                x.dtype(),
                &[1, 2],
                x.contiguous_bytes()[..2 * x.dtype().size()].to_vec(),
            )
            .unwrap(),
        ),
        "gather" => gather(soc, x, 1, &Tensor::from_slice(&[2, 1], &[1i64, 0]).unwrap()),
        "reflection_pad1d" => reflection_pad1d(soc, x, &[1, 1]),
        "reflection_pad2d" => reflection_pad2d(soc, &x3, &[1, 0, 0, 1]),
        "reflection_pad3d" => reflection_pad3d(soc, &x4, &[1, 1, 1, 1, 0, 0]),
        "replication_pad1d" => replication_pad1d(soc, x, &[3, 1]),
        "replication_pad2d" => replication_pad2d(soc, &x3, &[1, 2, 3, 4]),
        "replication_pad3d" => replication_pad3d(soc, &x4, &[1, 1, 1, 1, 1, 1]),
        "circular_pad2d" => circular_pad2d(soc, &x3, &[1, 1, 1, 1]),
        "circular_pad3d" => circular_pad3d(soc, &x4, &[1, 1, 1, 0, 0, 0]),
        _ => unreachable!(),
    }
}

/// ops.md, restated as one table: is `op` available on the family?
fn available(op: &str, fam: Family) -> bool {
    use Family::*;
    match op {
        "slice" | "slice_v2" | "add" | "split_with_size" | "permute" | "take" | "index_copy" => {
            matches!(fam, Training | A2 | A3)
        }
        "embedding" | "strided_slice_assign_v2" => matches!(fam, A2 | A3),
        "slice_v3" | "as_strided_aclnn" | "view_copy" => matches!(fam, A2),
        "index_select" | "sampled_slice" | "mul" | "cat" | "stack" | "split_tensor"
        | "fill_scalar" | "zero" | "cast" | "tril" | "triu" => {
            matches!(fam, Training | A2 | A3 | Inference)
        }
        "as_strided" | "subtensor" | "index" => true,
        "flip" => matches!(fam, A2 | A3),
        "roll" | "expand" | "repeat" | "gather_v2" | "gather" | "gather_nd" | "masked_select" => {
            matches!(fam, Training | A2 | A3 | Inference)
        }
        "reflection_pad1d" | "reflection_pad2d" | "reflection_pad3d" | "replication_pad1d"
        | "replication_pad2d" | "replication_pad3d" => {
            matches!(fam, Training | A2 | A3 | Inference)
        }
        "circular_pad2d" | "circular_pad3d" => matches!(fam, A2 | A3),
        _ => unreachable!(),
    }
}

/// ops.md, restated: is `dtype` accepted by `op` on the family (if available)?
fn dtype_ok(op: &str, fam: Family, dtype: DType) -> bool {
    let bf16_family = matches!(fam, Family::A2 | Family::A3);
    match op {
        "slice" | "slice_v2" => match dtype {
            DType::Float32
            | DType::Float16
            | DType::Int32
            | DType::Int64
            | DType::Int8
            | DType::UInt8
            | DType::Bool => true,
            DType::BFloat16 => bf16_family,
            _ => false,
        },
        "index_select" | "as_strided" | "sampled_slice" | "stack" | "repeat" | "take" => {
            dtype != DType::BFloat16 || bf16_family
        }
        "subtensor" => true,
        "as_strided_aclnn" => !matches!(dtype, DType::Float64 | DType::Complex128),
        "view_copy" => !matches!(
            dtype,
            DType::Float64 | DType::Complex64 | DType::Complex128 | DType::UInt64
        ),
        "strided_slice_assign_v2" => matches!(
            dtype,
            DType::Float16
                | DType::Float32
                | DType::BFloat16
                | DType::Int32
                | DType::Int64
                | DType::Float64
                | DType::Int8
        ),
        "slice_v3" => matches!(
            dtype,
            DType::Float32
                | DType::Float16
                | DType::Int32
                | DType::Int16
                | DType::Int8
                | DType::UInt8
                | DType::BFloat16
        ),
        "cast" => dtype != DType::BFloat16 || bf16_family,
        "index" => match dtype {
            DType::Float32
            | DType::Float16
            | DType::Float64
            | DType::Int32
            | DType::Int64
            | DType::Int16
            | DType::Int8
            | DType::UInt8
            | DType::Bool => true,
            DType::BFloat16 => bf16_family || fam == Family::A200I500A2,
            _ => false,
        },
        "flip" => !matches!(dtype, DType::UInt16 | DType::UInt32 | DType::UInt64),
        "expand" | "gather_nd" => match dtype {
            DType::Float16
            | DType::Float32
            | DType::UInt8
            | DType::Int8
            | DType::Int32
            | DType::Int64
            | DType::Bool => true,
            DType::BFloat16 => bf16_family,
            _ => false,
        },
        "roll" => match dtype {
            DType::Float16
            | DType::Float32
            | DType::Int8
            | DType::UInt8
            | DType::Int32
            | DType::Int64
            | DType::UInt32
            | DType::Bool => true,
            DType::BFloat16 => bf16_family,
            _ => false,
        },
        "permute" => match dtype {
            DType::BFloat16 | DType::Complex128 => bf16_family,
            _ => true,
        },
        "tril" | "triu" | "gather" => match dtype {
            DType::Complex64 | DType::Complex128 => false,
            DType::BFloat16 => bf16_family,
            _ => true,
        },
        "masked_select" => match dtype {
            DType::UInt16 | DType::UInt32 | DType::UInt64 => false,
            DType::Complex64 | DType::Complex128 => false,
            DType::BFloat16 => bf16_family,
            _ => true,
        },
        "zero" => match dtype {
            DType::UInt32 | DType::UInt64 => false,
            DType::BFloat16 => bf16_family,
            _ => true,
        },
        "add" | "mul" | "split_tensor" | "split_with_size" | "fill_scalar" | "embedding"
        | "gather_v2" | "index_copy" => match dtype {
            DType::UInt16 | DType::UInt32 | DType::UInt64 => false,
            DType::BFloat16 => bf16_family,
            _ => true,
        },
        "cat" => match dtype {
            DType::UInt16 | DType::UInt32 | DType::UInt64 | DType::Complex128 => false,
            DType::BFloat16 => bf16_family,
            _ => true,
        },
        "reflection_pad1d" | "reflection_pad2d" | "reflection_pad3d" => match dtype {
            DType::UInt16 | DType::UInt32 | DType::UInt64 => false,
            DType::BFloat16 | DType::Complex64 | DType::Complex128 => bf16_family,
            _ => true,
        },
        "replication_pad1d" | "replication_pad2d" | "replication_pad3d" => match dtype {
            DType::UInt16 | DType::UInt32 | DType::UInt64 | DType::Bool => false,
            DType::BFloat16 => bf16_family,
            _ => true,
        },
        "circular_pad2d" | "circular_pad3d" => matches!(
            dtype,
            DType::Float16 | DType::BFloat16 | DType::Float32 | DType::Int8 | DType::Int32
        ),
        _ => unreachable!(),
    }
}

#[test]
fn full_matrix_of_operator_family_soc_and_dtype() {
    let mut checked = 0;
    for op in OPS {
        for fam in Family::ALL {
            for soc in fam.soc_names() {
                for dtype in DType::ALL {
                    let x = Tensor::from_bytes(dtype, &[2, 2], vec![0; 4 * dtype.size()]).unwrap();
                    let got = call(op, soc, &x);
                    let want_kind = if !available(op, fam) {
                        Some("unsupported_op")
                    } else if !dtype_ok(op, fam, dtype) {
                        Some("unsupported_dtype")
                    } else {
                        None
                    };
                    match (want_kind, got) {
                        (None, Ok(y)) => assert_eq!(y.dtype(), dtype),
                        (Some(kind), Err(e)) => {
                            assert_eq!(e.kind(), kind, "{op} {soc} {dtype}");
                            assert_eq!(e.op(), op);
                            // The SoC string is in the error.
                            assert!(e.to_string().contains(soc), "{e}");
                        }
                        (want, got) => {
                            panic!("{op} on {soc} with {dtype}: want {want:?}, got {got:?}")
                        }
                    }
                    checked += 1;
                }
            }
        }
    }
    assert_eq!(checked, 42 * 28 * 15);
}

#[test]
fn unknown_soc_is_invalid_argument_for_every_operator() {
    let x = Tensor::from_slice(&[2, 2], &[0i32; 4]).unwrap();
    for op in OPS {
        for soc in [
            "",
            "Ascend310P6",
            "Ascend910B4_1",
            "ascend910b3",
            "Ascend910C",
        ] {
            let e = call(op, soc, &x).unwrap_err();
            assert_eq!(
                (e.kind(), e.op(), e.param()),
                ("invalid_argument", op, Some("soc")),
                "{op} {soc:?}"
            );
        }
    }
}

#[test]
fn plain_ascend910b_is_training_not_a2() {
    let x = Tensor::from_bytes(DType::BFloat16, &[2, 2], vec![0; 8]).unwrap();
    assert_eq!(Family::from_soc("Ascend910B"), Some(Family::Training));
    assert_eq!(
        call("slice", "Ascend910B", &x).unwrap_err().kind(),
        "unsupported_dtype"
    );
    assert!(call("slice", "Ascend910B1", &x).is_ok());
}

#[test]
fn error_kinds_cover_the_conformance_list() {
    let x = Tensor::from_slice(&[2], &[0i32; 2]).unwrap();
    let kinds = [
        slice("Ascend910B3", &x, 0, 0, 1, 0).unwrap_err().kind(),
        slice(
            "Ascend910B3",
            &Tensor::from_slice(&[1], &[0u16]).unwrap(),
            0,
            0,
            1,
            1,
        )
        .unwrap_err()
        .kind(),
        slice("Ascend310B1", &x, 0, 0, 1, 1).unwrap_err().kind(),
        index_select("Ascend910B3", &x, 0, &Tensor::scalar(2i64))
            .unwrap_err()
            .kind(),
    ];
    assert_eq!(
        kinds,
        [
            "invalid_argument",
            "unsupported_dtype",
            "unsupported_op",
            "index_out_of_range"
        ]
    );
}
