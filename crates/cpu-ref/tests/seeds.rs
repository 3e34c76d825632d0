//! The examples and rules of the seed documents (`shared/seeds/*.txt`), one
//! group of tests per seed, named after the seed file.

use cpu_ref::{
    as_strided, check_out_shape, index_select, sampled_slice, slice, slice_out_shape, subtensor,
    DType, Element, RefError, SampleMode, SampledSliceParams, Scalar, Tensor, DEFAULT_SOC,
};
use half::f16;

/// Builds a contiguous tensor of `T` from i32 values via `conv`.
fn tensor<T: Element>(shape: &[usize], values: &[i32], conv: impl Fn(i32) -> T) -> Tensor {
    let data: Vec<T> = values.iter().map(|&v| conv(v)).collect();
    Tensor::from_slice(shape, &data).unwrap()
}

fn i32s(shape: &[usize], values: &[i32]) -> Tensor {
    tensor(shape, values, |v| v)
}

fn one_to_nine() -> Tensor {
    i32s(&[3, 3], &[1, 2, 3, 4, 5, 6, 7, 8, 9])
}

/// Same dtype, same shape, same bytes.
fn assert_same(got: &Tensor, want: &Tensor) {
    assert_eq!(got.dtype(), want.dtype());
    assert_eq!(got.shape(), want.shape());
    assert_eq!(got.contiguous_bytes(), want.contiguous_bytes());
}

// ---------------------------------------------------------------- seed 000

fn as_strided_seed(offset: i64, want: &[i32]) {
    let x = [1, 2, 3, 4, 5, 6, 7, 8, 9];
    // The seed's dtypes are float16 and int64; float32 and int32 are the project's.
    let f16s = tensor(&[3, 3], &x, |v| f16::from_f32(v as f32));
    let y = as_strided(DEFAULT_SOC, &f16s, &[2, 2], &[2, 3], &[offset]).unwrap();
    assert_same(&y, &tensor(&[2, 2], want, |v| f16::from_f32(v as f32)));
    let i64s = tensor(&[3, 3], &x, i64::from);
    let y = as_strided(DEFAULT_SOC, &i64s, &[2, 2], &[2, 3], &[offset]).unwrap();
    assert_same(&y, &tensor(&[2, 2], want, i64::from));
    let y = as_strided(DEFAULT_SOC, &one_to_nine(), &[2, 2], &[2, 3], &[offset]).unwrap();
    assert_same(&y, &i32s(&[2, 2], want));
}

#[test]
fn seed_000_08ef8aaaeb151dac_as_strided_offset_0() {
    as_strided_seed(0, &[1, 4, 3, 6]);
}

#[test]
fn seed_000_08ef8aaaeb151dac_as_strided_offset_2() {
    as_strided_seed(2, &[3, 6, 5, 8]);
}

#[test]
fn seed_000_08ef8aaaeb151dac_as_strided_param_constraints() {
    let x = one_to_nine();
    let param = |size: &[i64], stride: &[i64], offset: &[i64]| {
        as_strided(DEFAULT_SOC, &x, size, stride, offset)
            .unwrap_err()
            .param()
            .unwrap()
    };
    // size.size() <= 8, size.at(i) > 0.
    assert_eq!(param(&[1; 9], &[0; 9], &[0]), "size");
    assert_eq!(param(&[2, 0], &[1, 1], &[0]), "size");
    // stride.size() == size.size(), stride.at(i) >= 0.
    assert_eq!(param(&[2, 2], &[1], &[0]), "stride");
    assert_eq!(param(&[2, 2], &[1, -1], &[0]), "stride");
    // offset.size() == 1, offset.at(i) >= 0.
    assert_eq!(param(&[2, 2], &[1, 1], &[0, 1]), "offset");
    assert_eq!(param(&[2, 2], &[1, 1], &[-1]), "offset");
    // Within the constraints, everything works.
    assert!(as_strided(DEFAULT_SOC, &x, &[1; 8], &[0; 8], &[0]).is_ok());
}

// ---------------------------------------------------------------- seed 001

/// Start/end normalisation examples, `self.shape[dim] = N = 5`.
#[test]
fn seed_001_f45413b2fbb7aed2_slice_normalisation() {
    let x = i32s(&[5], &[10, 11, 12, 13, 14]);
    let cases: [(i64, i64, i64, &[i32]); 12] = [
        (0, 5, 1, &[10, 11, 12, 13, 14]),
        // start < -N -> 0.
        (-7, 3, 1, &[10, 11, 12]),
        // -N <= start < N -> (start + N) % N.
        (-2, 5, 1, &[13, 14]),
        (-5, 2, 1, &[10, 11]),
        // start >= N -> N: empty.
        (5, 5, 1, &[]),
        (7, 2, 1, &[]),
        // end >= N -> N.
        (3, 100, 1, &[13, 14]),
        // (end + N) % N < start' -> start': empty.
        (3, 1, 1, &[]),
        (3, -3, 1, &[]),
        // otherwise (end + N) % N.
        (1, -1, 1, &[11, 12, 13]),
        // floor((end' - start' + step - 1) / step).
        (0, 5, 2, &[10, 12, 14]),
        (1, 5, 3, &[11, 14]),
    ];
    for (start, end, step, want) in cases {
        let y = slice(DEFAULT_SOC, &x, 0, start, end, step).unwrap();
        assert_same(&y, &i32s(&[want.len()], want));
        assert_eq!(
            slice_out_shape(&[5], 0, start, end, step).unwrap(),
            [want.len()]
        );
    }
}

#[test]
fn seed_001_f45413b2fbb7aed2_slice_dim_step_rank() {
    let x = one_to_nine();
    // dim in [-self.dim(), self.dim() - 1].
    assert!(slice(DEFAULT_SOC, &x, -2, 0, 1, 1).is_ok());
    assert!(slice(DEFAULT_SOC, &x, 1, 0, 1, 1).is_ok());
    assert_eq!(
        slice(DEFAULT_SOC, &x, 2, 0, 1, 1).unwrap_err().param(),
        Some("dim")
    );
    assert_eq!(
        slice(DEFAULT_SOC, &x, -3, 0, 1, 1).unwrap_err().param(),
        Some("dim")
    );
    // step > 0.
    assert_eq!(
        slice(DEFAULT_SOC, &x, 0, 0, 1, 0).unwrap_err().param(),
        Some("step")
    );
    // shape 1..8 dims.
    assert_eq!(
        slice(DEFAULT_SOC, &Tensor::scalar(1i32), 0, 0, 1, 1)
            .unwrap_err()
            .param(),
        Some("self")
    );
    let nine = i32s(&[1; 9], &[0]);
    assert_eq!(
        slice(DEFAULT_SOC, &nine, 0, 0, 1, 1).unwrap_err().param(),
        Some("self")
    );
    // out.shape follows the inference rule: anything else is rejected.
    let expected = slice_out_shape(&[3, 3], 1, 1, 3, 1).unwrap();
    assert_eq!(expected, [3, 2]);
    assert!(check_out_shape("slice", &expected, &[3, 2]).is_ok());
    assert!(check_out_shape("slice", &expected, &[3, 3]).is_err());
}

#[test]
fn seed_001_f45413b2fbb7aed2_slice_products_and_dtypes() {
    let training = [
        DType::Float32,
        DType::Float16,
        DType::Int32,
        DType::Int64,
        DType::Int8,
        DType::UInt8,
        DType::Bool,
    ];
    for dtype in DType::ALL {
        let x = Tensor::from_bytes(dtype, &[2], vec![0; 2 * dtype.size()]).unwrap();
        let on = |soc: &str| slice(soc, &x, 0, 0, 1, 1).map(|_| ()).map_err(|e| e.kind());
        let in_training = training.contains(&dtype);
        let in_a2 = in_training || dtype == DType::BFloat16;
        let want = |ok: bool| if ok { Ok(()) } else { Err("unsupported_dtype") };
        assert_eq!(on("Ascend910A"), want(in_training), "{dtype}");
        assert_eq!(on("Ascend910B2"), want(in_a2), "{dtype}");
        assert_eq!(on("Ascend910_9382"), want(in_a2), "{dtype}");
        assert_eq!(on("Ascend310P3"), Err("unsupported_op"));
        assert_eq!(on("Ascend310B1"), Err("unsupported_op"));
    }
}

// ---------------------------------------------------------------- seed 002

#[test]
fn seed_002_29c6b9bb58d31f8b_slice() {
    let x = tensor(&[3, 3], &[0, 1, 2, 3, 4, 5, 6, 7, 8], |v| v as f32);
    let want = tensor(&[2, 2], &[0, 1, 3, 4], |v| v as f32);
    // In bounds, so every mode agrees with the default STRICT_BOUNDS.
    let modes = [
        SampleMode::StrictBounds,
        SampleMode::Wrap,
        SampleMode::Clamp,
        SampleMode::fill_default(),
        SampleMode::Reflect,
    ];
    for mode in modes {
        let params = SampledSliceParams::new(&[0, 0], &[2, 2], &[1, 1], mode);
        assert_same(&sampled_slice(DEFAULT_SOC, &x, &params).unwrap(), &want);
    }
}

#[test]
fn seed_002_29c6b9bb58d31f8b_fill() {
    let x = tensor(&[2, 2], &[0, 0, 0, 0], |v| v as f32);
    let params = SampledSliceParams::new(
        &[0, 0],
        &[3, 3],
        &[1, 1],
        SampleMode::Fill(Scalar::Float(1.0)),
    );
    let y = sampled_slice(DEFAULT_SOC, &x, &params).unwrap();
    assert_same(
        &y,
        &tensor(&[3, 3], &[0, 0, 1, 0, 0, 1, 1, 1, 1], |v| v as f32),
    );
    // STRICT_BOUNDS rejects the same request.
    let strict = SampledSliceParams::new(&[0, 0], &[3, 3], &[1, 1], SampleMode::StrictBounds);
    assert_eq!(
        sampled_slice(DEFAULT_SOC, &x, &strict).unwrap_err().kind(),
        "invalid_argument"
    );
}

/// The five mode formulas on one 1-D input of extent 4, `x = y*stride + start`.
#[test]
fn seed_002_29c6b9bb58d31f8b_modes() {
    let x = i32s(&[4], &[10, 11, 12, 13]);
    let run = |mode| {
        let params = SampledSliceParams::new(&[-3], &[9], &[1], mode);
        sampled_slice(DEFAULT_SOC, &x, &params)
            .unwrap()
            .to_vec::<i32>()
            .unwrap()
    };
    // x = -3..=5.
    assert_eq!(run(SampleMode::Wrap), [11, 12, 13, 10, 11, 12, 13, 10, 11]);
    assert_eq!(run(SampleMode::Clamp), [10, 10, 10, 10, 11, 12, 13, 13, 13]);
    assert_eq!(
        run(SampleMode::Fill(Scalar::Int(-1))),
        [-1, -1, -1, 10, 11, 12, 13, -1, -1]
    );
    // c = |x| mod 6 = 3,2,1,0,1,2,3,4,5; z = 6 - c if c >= 4.
    assert_eq!(
        run(SampleMode::Reflect),
        [13, 12, 11, 10, 11, 12, 13, 12, 11]
    );
    let e = sampled_slice(
        DEFAULT_SOC,
        &x,
        &SampledSliceParams::new(&[-3], &[9], &[1], SampleMode::StrictBounds),
    );
    assert_eq!(e.unwrap_err().param(), Some("start"));
}

/// start/size/stride as INT32/INT64 tensors (inputs 1-3, axes) give the same result.
#[test]
fn seed_002_29c6b9bb58d31f8b_dynamic_inputs() {
    let x = i32s(&[3, 3], &[0, 1, 2, 3, 4, 5, 6, 7, 8]);
    let mode = SampleMode::Fill(Scalar::Int(1));
    let stat = SampledSliceParams::new(&[0, 0], &[3, 3], &[1, 1], mode);
    let t32 = |v: &[i32]| Tensor::from_slice(&[v.len()], v).unwrap();
    let t64 = |v: &[i64]| Tensor::from_slice(&[v.len()], v).unwrap();
    let dynamic =
        SampledSliceParams::from_tensors(&t32(&[0, 0]), &t64(&[3, 3]), &t32(&[1, 1]), None, mode)
            .unwrap();
    assert_same(
        &sampled_slice(DEFAULT_SOC, &x, &dynamic).unwrap(),
        &sampled_slice(DEFAULT_SOC, &x, &stat).unwrap(),
    );
}

// ---------------------------------------------------------------- seed 003

#[test]
fn seed_003_5b9bd85c692e67a1_index_select_dim0() {
    let index = Tensor::from_slice(&[2], &[1i64, 0]).unwrap();
    let y = index_select(DEFAULT_SOC, &one_to_nine(), 0, &index).unwrap();
    assert_same(&y, &i32s(&[2, 3], &[4, 5, 6, 1, 2, 3]));
}

#[test]
fn seed_003_5b9bd85c692e67a1_index_select_dim1() {
    let index = Tensor::from_slice(&[2], &[1i64, 0]).unwrap();
    let y = index_select(DEFAULT_SOC, &one_to_nine(), 1, &index).unwrap();
    assert_same(&y, &i32s(&[3, 2], &[2, 1, 5, 4, 8, 7]));
}

#[test]
fn seed_003_5b9bd85c692e67a1_index_select_3x2x2() {
    let x = i32s(&[3, 2, 2], &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    let index = Tensor::from_slice(&[2], &[1i32, 0]).unwrap();
    let y = index_select(DEFAULT_SOC, &x, 0, &index).unwrap();
    assert_same(&y, &i32s(&[2, 2, 2], &[5, 6, 7, 8, 1, 2, 3, 4]));
    let y = index_select(DEFAULT_SOC, &x, 1, &index).unwrap();
    assert_same(
        &y,
        &i32s(&[3, 2, 2], &[3, 4, 1, 2, 7, 8, 5, 6, 11, 12, 9, 10]),
    );
    let y = index_select(DEFAULT_SOC, &x, 2, &index).unwrap();
    assert_same(
        &y,
        &i32s(&[3, 2, 2], &[2, 1, 4, 3, 6, 5, 8, 7, 10, 9, 12, 11]),
    );
}

#[test]
fn seed_003_5b9bd85c692e67a1_index_rules() {
    let x = one_to_nine();
    // A 0-D index counts as a 1-D index of length 1.
    let y = index_select(DEFAULT_SOC, &x, 0, &Tensor::scalar(2i64)).unwrap();
    assert_same(&y, &i32s(&[1, 3], &[7, 8, 9]));
    // Only INT64 / INT32 indices.
    let bad = Tensor::from_slice(&[1], &[0i16]).unwrap();
    assert_eq!(
        index_select(DEFAULT_SOC, &x, 0, &bad).unwrap_err().param(),
        Some("index")
    );
    // Out-of-range indices are not supported: the oracle reports the first.
    let index = Tensor::from_slice(&[3], &[0i64, 3, -1]).unwrap();
    assert_eq!(
        index_select(DEFAULT_SOC, &x, 0, &index).unwrap_err(),
        RefError::IndexOutOfRange {
            op: "index_select",
            position: 1,
            value: 3,
            bound: 3
        }
    );
    // Rank above 8 is rejected.
    let nine = i32s(&[1; 9], &[0]);
    let index = Tensor::from_slice(&[1], &[0i64]).unwrap();
    assert_eq!(
        index_select(DEFAULT_SOC, &nine, 0, &index)
            .unwrap_err()
            .param(),
        Some("self")
    );
}

#[test]
fn seed_003_5b9bd85c692e67a1_index_select_products_and_dtypes() {
    let index = Tensor::from_slice(&[1], &[0i64]).unwrap();
    for dtype in DType::ALL {
        let x = Tensor::from_bytes(dtype, &[2], vec![0; 2 * dtype.size()]).unwrap();
        let on = |soc: &str| {
            index_select(soc, &x, 0, &index)
                .map(|_| ())
                .map_err(|e| e.kind())
        };
        let bf16_ok = |ok: bool| if ok { Ok(()) } else { Err("unsupported_dtype") };
        let not_bf16 = dtype != DType::BFloat16;
        assert_eq!(on("Ascend910_9391"), Ok(()), "{dtype}");
        assert_eq!(on("Ascend910B1"), Ok(()), "{dtype}");
        assert_eq!(on("Ascend310P5"), bf16_ok(not_bf16), "{dtype}");
        assert_eq!(on("Ascend910ProB"), bf16_ok(not_bf16), "{dtype}");
        assert_eq!(on("Ascend310B4"), Err("unsupported_op"));
    }
}

// ---------------------------------------------------------------- seed 004

fn feature_map() -> Tensor {
    let values: Vec<i32> = (0..8 * 4 * 16).collect();
    i32s(&[8, 4, 16], &values)
}

#[test]
fn seed_004_ad22a77e815000eb_subtensor_channels() {
    // IN[2:4][:][:]: channels #2 and #3.
    let x = feature_map();
    let y = subtensor(DEFAULT_SOC, &x, &[2], 2).unwrap();
    assert!(y.shares_storage(&x));
    let want: Vec<i32> = (2 * 64..4 * 64).collect();
    assert_same(&y, &i32s(&[2, 4, 16], &want));
}

#[test]
fn seed_004_ad22a77e815000eb_subtensor_row() {
    // IN[3][2:3][:]: row #2 of channel #3.
    let x = feature_map();
    let y = subtensor(DEFAULT_SOC, &x, &[3, 2], 1).unwrap();
    assert!(y.shares_storage(&x));
    let want: Vec<i32> = (3 * 64 + 2 * 16..3 * 64 + 3 * 16).collect();
    assert_same(&y, &i32s(&[1, 16], &want));
}

#[test]
fn seed_004_ad22a77e815000eb_subtensor_conditions() {
    let x = feature_map();
    let param = |c: &[i64], f: i64| {
        subtensor(DEFAULT_SOC, &x, c, f)
            .unwrap_err()
            .param()
            .unwrap()
    };
    // The number of coordinates must be less than the input rank.
    assert_eq!(param(&[0, 0, 0], 1), "start_coord");
    // Each coordinate must be less than the corresponding dimension.
    assert_eq!(param(&[8], 1), "start_coord");
    assert_eq!(param(&[7, 4], 1), "start_coord");
    // first_out_dim_size + last coordinate <= that dimension.
    assert_eq!(param(&[6], 3), "first_out_dim_size");
    assert!(subtensor(DEFAULT_SOC, &x, &[6], 2).is_ok());
    assert!(subtensor(DEFAULT_SOC, &x, &[7, 3], 1).is_ok());
}
