//! Property tests: the operators against naive re-statements of ops.md, and
//! "never panics" for arbitrary i64 parameters.

use cpu_ref::{
    add, as_strided, as_strided_aclnn, cat, embedding, expand, fill_scalar, flip, gather,
    gather_nd, gather_v2, index_copy, index_select, masked_select, mul, permute, repeat, roll,
    sampled_slice, slice, slice_v2, slice_v3, stack, strided_slice_assign_ranges,
    strided_slice_assign_v2, subtensor, take, view_copy, zero, SampleMode, SampledSliceParams,
    Scalar, Tensor, Window, DEFAULT_SOC,
};
use proptest::prelude::*;

/// int32 tensor of `shape` holding 0, 1, 2, ...
fn arange(shape: &[usize]) -> Tensor {
    let n: usize = shape.iter().product();
    let data: Vec<i32> = (0..n as i32).collect();
    Tensor::from_slice(shape, &data).unwrap()
}

fn shape_strategy(
    min_rank: usize,
    max_rank: usize,
    max_extent: usize,
) -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(0..=max_extent, min_rank..=max_rank)
}

/// Interesting i64 values: small ones, the extremes, anything.
fn any_i64() -> impl Strategy<Value = i64> {
    prop_oneof![
        -12i64..12,
        prop::sample::select(vec![
            i64::MIN,
            i64::MIN + 1,
            -(1 << 62),
            1 << 62,
            i64::MAX - 1,
            i64::MAX
        ]),
        any::<i64>(),
    ]
}

/// Sizes that are small, negative, or far too large to allocate; never
/// allocatable-but-huge (which would make a test run for hours).
fn size_i64() -> impl Strategy<Value = i64> {
    prop_oneof![-2i64..6, i64::MIN..0, (1i64 << 61)..=i64::MAX]
}

/// The transpose of the first two axes of `x` (a non-contiguous view), if rank >= 2.
fn transposed(x: &Tensor) -> Tensor {
    let mut shape = x.shape().to_vec();
    let mut strides = x.strides().to_vec();
    if shape.len() >= 2 {
        shape.swap(0, 1);
        strides.swap(0, 1);
    }
    x.view(&shape, &strides, x.offset()).unwrap()
}

/// Every logical index of `shape` in row-major order.
fn indices(shape: &[usize]) -> Vec<Vec<usize>> {
    let mut all = vec![vec![]];
    for &d in shape {
        let mut next = Vec::new();
        for prefix in &all {
            for i in 0..d {
                let mut p = prefix.clone();
                p.push(i);
                next.push(p);
            }
        }
        all = next;
    }
    all
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// slice equals a gather over the positions start', start'+step, .. < end'.
    #[test]
    fn slice_equals_naive_gather(
        shape in shape_strategy(1, 4, 5),
        dim_pick in 0usize..8,
        start in any_i64(),
        end in any_i64(),
        step in prop_oneof![1i64..7, Just(i64::MAX)],
        transpose in any::<bool>(),
    ) {
        let base = arange(&shape);
        let x = if transpose { transposed(&base) } else { base };
        let rank = x.rank();
        let dim = dim_pick % rank;
        let n = x.shape()[dim] as i128;
        // ops.md normalisation, restated.
        let (s, e) = (start as i128, end as i128);
        let (s2, e2) = if n == 0 {
            (0, 0)
        } else {
            let s2 = if s < -n { 0 } else if s >= n { n } else { (s + n) % n };
            let e2 = if e >= n { n } else if (e + n) % n < s2 { s2 } else { (e + n) % n };
            (s2, e2)
        };
        let mut positions = Vec::new();
        let mut p = s2;
        while p < e2 {
            positions.push(p as usize);
            p += step as i128;
        }
        let mut want_shape = x.shape().to_vec();
        want_shape[dim] = positions.len();
        let mut want = Vec::new();
        for idx in indices(&want_shape) {
            let mut src = idx.clone();
            src[dim] = positions[idx[dim]];
            want.extend_from_slice(x.element_bytes(&src));
        }
        // Also through a negative dim.
        for d in [dim as i64, dim as i64 - rank as i64] {
            let y = slice(DEFAULT_SOC, &x, d, start, end, step).unwrap();
            prop_assert_eq!(y.shape(), &want_shape[..]);
            prop_assert_eq!(y.contiguous_bytes(), want.clone());
        }
    }

    /// A non-contiguous input gives the same result as its contiguous copy.
    #[test]
    fn views_equal_contiguous_copies(
        shape in shape_strategy(2, 4, 4),
        start in -5i64..5,
        size in 0i64..5,
        stride in -3i64..3,
        index in prop::collection::vec(0i64..4, 0..4),
    ) {
        let v = transposed(&arange(&shape));
        let c = v.to_contiguous();
        let same = |a: Result<Tensor, _>, b: Result<Tensor, _>| match (a, b) {
            (Ok(a), Ok(b)) => a.shape() == b.shape() && a.contiguous_bytes() == b.contiguous_bytes(),
            (Err(a), Err(b)) => a == b,
            _ => false,
        };
        prop_assert!(same(slice(DEFAULT_SOC, &v, 0, start, start + size, 1), slice(DEFAULT_SOC, &c, 0, start, start + size, 1)));
        let it = Tensor::from_slice(&[index.len()], &index).unwrap();
        prop_assert!(same(index_select(DEFAULT_SOC, &v, 1, &it), index_select(DEFAULT_SOC, &c, 1, &it)));
        prop_assert!(same(
            as_strided(DEFAULT_SOC, &v, &[size.max(1)], &[stride.abs()], &[start.abs()]),
            as_strided(DEFAULT_SOC, &c, &[size.max(1)], &[stride.abs()], &[start.abs()]),
        ));
        for mode in [SampleMode::StrictBounds, SampleMode::Wrap, SampleMode::Clamp, SampleMode::fill_default(), SampleMode::Reflect] {
            let p = SampledSliceParams::new(&[start], &[size], &[stride], mode).with_axes(&[-1]);
            prop_assert!(same(sampled_slice(DEFAULT_SOC, &v, &p), sampled_slice(DEFAULT_SOC, &c, &p)));
        }
        let sv = subtensor(DEFAULT_SOC, &v, &[start.abs() % 4], 1);
        let sc = subtensor(DEFAULT_SOC, &c, &[start.abs() % 4], 1);
        prop_assert!(same(sv, sc));
    }

    /// index_select equals out[.., i, ..] = x[.., index[i], ..]; int32 == int64.
    #[test]
    fn index_select_equals_naive(
        shape in shape_strategy(1, 4, 4),
        dim_pick in 0usize..8,
        picks in prop::collection::vec(0usize..64, 0..6),
    ) {
        let x = arange(&shape);
        let dim = dim_pick % x.rank();
        let n = shape[dim];
        prop_assume!(n > 0 || picks.is_empty());
        let index: Vec<i64> = picks.iter().map(|&p| (p % n.max(1)) as i64).collect();
        let mut want_shape = shape.clone();
        want_shape[dim] = index.len();
        let mut want = Vec::new();
        for idx in indices(&want_shape) {
            let mut src = idx.clone();
            src[dim] = index[idx[dim]] as usize;
            want.extend_from_slice(x.element_bytes(&src));
        }
        let i64_index = Tensor::from_slice(&[index.len()], &index).unwrap();
        let i32_values: Vec<i32> = index.iter().map(|&v| v as i32).collect();
        let i32_index = Tensor::from_slice(&[index.len()], &i32_values).unwrap();
        for it in [i64_index, i32_index] {
            let y = index_select(DEFAULT_SOC, &x, dim as i64, &it).unwrap();
            prop_assert_eq!(y.shape(), &want_shape[..]);
            prop_assert_eq!(y.contiguous_bytes(), want.clone());
        }
    }

    /// On a contiguous input, as_strided equals the strided view over it.
    #[test]
    fn as_strided_equals_strided_view(
        numel in 1usize..24,
        size in prop::collection::vec(1i64..4, 1..4),
        stride_seed in prop::collection::vec(0i64..5, 4),
        offset in 0i64..24,
    ) {
        let x = arange(&[numel]);
        let stride: Vec<i64> = stride_seed[..size.len()].to_vec();
        let last: i64 = offset + size.iter().zip(&stride).map(|(n, s)| (n - 1) * s).sum::<i64>();
        let got = as_strided(DEFAULT_SOC, &x, &size, &stride, &[offset]);
        if last < numel as i64 {
            let shape: Vec<usize> = size.iter().map(|&v| v as usize).collect();
            let strides: Vec<usize> = stride.iter().map(|&v| v as usize).collect();
            let view = x.view(&shape, &strides, offset as usize).unwrap();
            let y = got.unwrap();
            prop_assert_eq!(y.shape(), view.shape());
            prop_assert_eq!(y.contiguous_bytes(), view.contiguous_bytes());
        } else {
            prop_assert_eq!(got.unwrap_err().param(), Some("offset"));
        }
    }

    /// WRAP with start 0 (or any multiple of d), stride 1, size d is the identity.
    #[test]
    fn wrap_full_window_is_identity(shape in shape_strategy(0, 4, 4), k in -3i64..3) {
        let x = arange(&shape);
        let start: Vec<i64> = shape.iter().map(|&d| k * d as i64).collect();
        let size: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
        let stride = vec![1; shape.len()];
        let y = sampled_slice(DEFAULT_SOC, &x, &SampledSliceParams::new(&start, &size, &stride, SampleMode::Wrap)).unwrap();
        prop_assert_eq!(y.shape(), x.shape());
        prop_assert_eq!(y.contiguous_bytes(), x.contiguous_bytes());
    }

    /// 1-D sampled slice against the table of ops.md, every mode.
    #[test]
    fn sampled_slice_1d_equals_formula(d in 1usize..6, start in any_i64(), stride in any_i64(), size in 0i64..6) {
        let x = arange(&[d]);
        let d128 = d as i128;
        let coords: Vec<i128> = (0..size as i128).map(|y| y * stride as i128 + start as i128).collect();
        let inside = |c: i128| (0..d128).contains(&c);
        let run = |mode| sampled_slice(DEFAULT_SOC, &x, &SampledSliceParams::new(&[start], &[size], &[stride], mode));
        let wrap: Vec<i32> = coords.iter().map(|&c| c.rem_euclid(d128) as i32).collect();
        prop_assert_eq!(run(SampleMode::Wrap).unwrap().to_vec::<i32>().unwrap(), wrap);
        let clamp: Vec<i32> = coords.iter().map(|&c| c.clamp(0, d128 - 1) as i32).collect();
        prop_assert_eq!(run(SampleMode::Clamp).unwrap().to_vec::<i32>().unwrap(), clamp);
        let fill: Vec<i32> = coords.iter().map(|&c| if inside(c) { c as i32 } else { -7 }).collect();
        prop_assert_eq!(run(SampleMode::Fill(Scalar::Int(-7))).unwrap().to_vec::<i32>().unwrap(), fill);
        let reflect: Vec<i32> = coords.iter().map(|&c| {
            if d == 1 { return 0; }
            let p = 2 * d128 - 2;
            let r = c.abs() % p;
            (if r >= d128 { p - r } else { r }) as i32
        }).collect();
        prop_assert_eq!(run(SampleMode::Reflect).unwrap().to_vec::<i32>().unwrap(), reflect);
        let strict = run(SampleMode::StrictBounds);
        if coords.iter().all(|&c| inside(c)) {
            let want: Vec<i32> = coords.iter().map(|&c| c as i32).collect();
            prop_assert_eq!(strict.unwrap().to_vec::<i32>().unwrap(), want);
        } else {
            prop_assert_eq!(strict.unwrap_err().kind(), "invalid_argument");
        }
    }

    /// The dynamic (tensor) form equals the static form.
    #[test]
    fn dynamic_equals_static(
        start in prop::collection::vec(any_i64(), 2),
        size in prop::collection::vec(0i64..4, 2),
        stride in prop::collection::vec(any_i64(), 2),
        use_axes in any::<bool>(),
        use_i32 in any::<bool>(),
    ) {
        let x = arange(&[3, 2]);
        let mode = SampleMode::Fill(Scalar::Int(5));
        let axes = [-1i64, 0];
        let t = |v: &[i64]| if use_i32 {
            let w: Vec<i32> = v.iter().map(|&e| e as i32).collect();
            Tensor::from_slice(&[w.len()], &w).unwrap()
        } else {
            Tensor::from_slice(&[v.len()], v).unwrap()
        };
        let start: Vec<i64> = if use_i32 { start.iter().map(|&v| v as i32 as i64).collect() } else { start };
        let stride: Vec<i64> = if use_i32 { stride.iter().map(|&v| v as i32 as i64).collect() } else { stride };
        let mut stat = SampledSliceParams::new(&start, &size, &stride, mode);
        if use_axes {
            stat = stat.with_axes(&axes);
        }
        let axes_t = t(&axes);
        let dynamic = SampledSliceParams::from_tensors(&t(&start), &t(&size), &t(&stride), use_axes.then_some(&axes_t), mode).unwrap();
        prop_assert_eq!(&dynamic, &stat);
        let a = sampled_slice(DEFAULT_SOC, &x, &dynamic).unwrap();
        let b = sampled_slice(DEFAULT_SOC, &x, &stat).unwrap();
        prop_assert_eq!(a.contiguous_bytes(), b.contiguous_bytes());
    }

    /// subtensor equals x[c_0, .., c_{k-1} + i, ..] and shares storage.
    #[test]
    fn subtensor_equals_naive(shape in shape_strategy(2, 4, 4), k_pick in 1usize..4, seeds in prop::collection::vec(0usize..8, 4), f_seed in 0usize..8, transpose in any::<bool>()) {
        let base = arange(&shape);
        let x = if transpose { transposed(&base) } else { base };
        let rank = x.rank();
        let k = 1 + (k_pick - 1) % (rank - 1);
        prop_assume!(x.shape()[..k].iter().all(|&d| d > 0));
        let coord: Vec<i64> = (0..k).map(|j| (seeds[j] % x.shape()[j]) as i64).collect();
        let room = x.shape()[k - 1] - coord[k - 1] as usize;
        let f = 1 + f_seed % room;
        let y = subtensor(DEFAULT_SOC, &x, &coord, f as i64).unwrap();
        prop_assert!(y.shares_storage(&x));
        let mut want_shape = vec![f];
        want_shape.extend_from_slice(&x.shape()[k..]);
        prop_assert_eq!(y.shape(), &want_shape[..]);
        let mut want = Vec::new();
        for idx in indices(&want_shape) {
            let mut src: Vec<usize> = coord.iter().map(|&c| c as usize).collect();
            src[k - 1] += idx[0];
            src.extend_from_slice(&idx[1..]);
            want.extend_from_slice(x.element_bytes(&src));
        }
        prop_assert_eq!(y.contiguous_bytes(), want);
    }

    /// No operator panics, whatever its i64 parameters.
    #[test]
    fn no_panics_for_arbitrary_parameters(
        shape in shape_strategy(0, 3, 3),
        a in any_i64(), b in any_i64(), c in any_i64(), d in any_i64(),
        sizes in prop::collection::vec(size_i64(), 0..4),
        others in prop::collection::vec(any_i64(), 0..4),
        index in prop::collection::vec(any_i64(), 0..4),
        mode_pick in 0usize..5,
    ) {
        let x = arange(&shape);
        let _ = slice(DEFAULT_SOC, &x, a, b, c, d);
        let it = Tensor::from_slice(&[index.len()], &index).unwrap();
        let _ = index_select(DEFAULT_SOC, &x, a, &it);
        let _ = as_strided(DEFAULT_SOC, &x, &sizes, &others, &[a]);
        let _ = as_strided(DEFAULT_SOC, &x, &sizes, &sizes, &[b]);
        let mode = [SampleMode::StrictBounds, SampleMode::Wrap, SampleMode::Clamp, SampleMode::Fill(Scalar::Int(c)), SampleMode::Reflect][mode_pick];
        let n = sizes.len();
        let starts = vec![a; n];
        let strides = vec![b; n];
        let _ = sampled_slice(DEFAULT_SOC, &x, &SampledSliceParams::new(&starts, &sizes, &strides, mode));
        let axes: Vec<i64> = others.iter().take(n).copied().collect();
        if axes.len() == n {
            let _ = sampled_slice(DEFAULT_SOC, &x, &SampledSliceParams::new(&starts, &sizes, &strides, mode).with_axes(&axes));
        }
        let _ = subtensor(DEFAULT_SOC, &x, &others, a);
        let _ = subtensor(DEFAULT_SOC, &x, &index, b);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// int32 add and mul equal the naive wrapping formulas over the
    /// broadcast (NumPy's rule restated), and a transposed view gives the
    /// result of its contiguous copy.
    #[test]
    fn int_add_mul_equal_naive_broadcast(
        shape in shape_strategy(1, 3, 4),
        ones in prop::collection::vec(any::<bool>(), 3),
        alpha in any_i64(),
        seed in any::<i32>(),
        transpose in any::<bool>(),
    ) {
        let n: usize = shape.iter().product();
        let data: Vec<i32> = (0..n as i32).map(|i| i.wrapping_mul(seed).wrapping_add(i)).collect();
        let base = Tensor::from_slice(&shape, &data).unwrap();
        let x = if transpose { transposed(&base) } else { base };
        // other: x's shape with some extents set to 1, and one dim fewer.
        let yshape: Vec<usize> = x.shape().iter().zip(&ones).map(|(&d, &o)| if o { 1 } else { d }).skip(1).collect();
        let ym: usize = yshape.iter().product();
        let ydata: Vec<i32> = (0..ym as i32).map(|i| seed.wrapping_sub(i * 7)).collect();
        let y = Tensor::from_slice(&yshape, &ydata).unwrap();
        let z = add(DEFAULT_SOC, &x, &y, Scalar::Int(alpha)).unwrap();
        let m = mul(DEFAULT_SOC, &x, &y).unwrap();
        prop_assert_eq!(z.shape(), x.shape());
        let (zv, mv) = (z.to_vec::<i32>().unwrap(), m.to_vec::<i32>().unwrap());
        for (k, idx) in indices(x.shape()).into_iter().enumerate() {
            let a = i32::from_ne_bytes(x.element_bytes(&idx).try_into().unwrap());
            let yi: Vec<usize> = idx[1..].iter().zip(&yshape).map(|(&i, &e)| if e == 1 { 0 } else { i }).collect();
            let b = i32::from_ne_bytes(y.element_bytes(&yi).try_into().unwrap());
            prop_assert_eq!(zv[k], a.wrapping_add((alpha as i32).wrapping_mul(b)));
            prop_assert_eq!(mv[k], a.wrapping_mul(b));
        }
        let zc = add(DEFAULT_SOC, &x.to_contiguous(), &y, Scalar::Int(alpha)).unwrap();
        prop_assert_eq!(zc.contiguous_bytes(), z.contiguous_bytes());
    }

    /// float32 add is `a + alpha * b` with two f32 roundings (no fused
    /// multiply-add), NaN canonical; mul is `a * b`.
    #[test]
    fn f32_add_mul_equal_two_roundings(
        a in prop::collection::vec(any::<f32>(), 1..16),
        alpha in any::<f32>(),
    ) {
        let b: Vec<f32> = a.iter().rev().copied().collect();
        let x = Tensor::from_slice(&[a.len()], &a).unwrap();
        let y = Tensor::from_slice(&[b.len()], &b).unwrap();
        let canon = |v: f32| if v.is_nan() { 0x7fc0_0000 } else { v.to_bits() };
        let z = add(DEFAULT_SOC, &x, &y, Scalar::Float(f64::from(alpha))).unwrap().to_vec::<f32>().unwrap();
        let m = mul(DEFAULT_SOC, &x, &y).unwrap().to_vec::<f32>().unwrap();
        for i in 0..a.len() {
            let t = alpha * b[i];
            prop_assert_eq!(z[i].to_bits(), canon(a[i] + t));
            prop_assert_eq!(m[i].to_bits(), canon(a[i] * b[i]));
        }
    }

    /// fill_scalar writes `value` as the same-width cast of the host
    /// (integers wrap, a finite f64 into f32 rounds as `as f32`); a view
    /// gives what its contiguous copy gives; zero writes all-zero bytes.
    #[test]
    fn fills_equal_naive(
        shape in shape_strategy(0, 4, 4),
        v in any_i64(),
        f in any::<f64>().prop_filter("not NaN", |f| !f.is_nan()),
    ) {
        let x = arange(&shape);
        let n = x.numel();
        let y = fill_scalar(DEFAULT_SOC, &x, Scalar::Int(v)).unwrap();
        prop_assert_eq!(y.to_vec::<i32>().unwrap(), vec![v as i32; n]);
        let t = transposed(&x);
        let a = fill_scalar(DEFAULT_SOC, &t, Scalar::Int(v)).unwrap();
        let b = fill_scalar(DEFAULT_SOC, &t.to_contiguous(), Scalar::Int(v)).unwrap();
        prop_assert_eq!(a.contiguous_bytes(), b.contiguous_bytes());
        let xf = Tensor::from_slice(&shape, &vec![1f32; n]).unwrap();
        let yf = fill_scalar(DEFAULT_SOC, &xf, Scalar::Float(f)).unwrap();
        prop_assert_eq!(yf.to_vec::<f32>().unwrap(), vec![f as f32; n]);
        prop_assert!(zero(DEFAULT_SOC, &t).unwrap().contiguous_bytes().iter().all(|b| *b == 0));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Cutting a tensor along `dim` into pieces (by slice) and joining them
    /// back with cat gives the tensor; a transposed member gives the same
    /// result as its contiguous copy.
    #[test]
    fn cat_of_slices_is_the_whole(
        shape in shape_strategy(1, 4, 4),
        dim_pick in 0usize..8,
        cuts in prop::collection::vec(0usize..5, 0..4),
    ) {
        let x = arange(&shape);
        let d = dim_pick % shape.len();
        let n = shape[d];
        let mut bounds: Vec<usize> = cuts.iter().map(|c| c % (n + 1)).collect();
        bounds.push(0);
        bounds.push(n);
        bounds.sort_unstable();
        let pieces: Vec<Tensor> = bounds
            .windows(2)
            .map(|w| slice(DEFAULT_SOC, &x, d as i64, w[0] as i64, w[1] as i64, 1).unwrap())
            .collect();
        let refs: Vec<&Tensor> = pieces.iter().collect();
        let y = cat(DEFAULT_SOC, &refs, d as i64).unwrap();
        prop_assert_eq!(y.shape(), x.shape());
        prop_assert_eq!(y.contiguous_bytes(), x.contiguous_bytes());
        let v = transposed(&x);
        let c = v.to_contiguous();
        let a = cat(DEFAULT_SOC, &[&v, &c], -1).unwrap();
        let b = cat(DEFAULT_SOC, &[&c, &c], -1).unwrap();
        prop_assert_eq!(a.contiguous_bytes(), b.contiguous_bytes());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Stack equals Cat of the members seen with an extent-1 dim inserted
    /// at `dim` (a stride-0 view), and a view member its contiguous copy.
    #[test]
    fn stack_is_cat_of_unsqueezed(
        shape in shape_strategy(0, 4, 3),
        dim_pick in 0usize..8,
        n in 1usize..4,
    ) {
        let x = arange(&shape);
        let d = dim_pick % (shape.len() + 1);
        let mut sh = shape.clone();
        sh.insert(d, 1);
        let mut st = x.strides().to_vec();
        st.insert(d, 0);
        let u = x.view(&sh, &st, 0).unwrap();
        let members: Vec<&Tensor> = (0..n).map(|_| &x).collect();
        let unsq: Vec<&Tensor> = (0..n).map(|_| &u).collect();
        let a = stack(DEFAULT_SOC, &members, d as i64).unwrap();
        let b = cat(DEFAULT_SOC, &unsq, d as i64).unwrap();
        prop_assert_eq!(a.shape(), b.shape());
        prop_assert_eq!(a.contiguous_bytes(), b.contiguous_bytes());
        let v = transposed(&x);
        let c = v.to_contiguous();
        prop_assert_eq!(
            stack(DEFAULT_SOC, &[&v, &c], -1).unwrap().contiguous_bytes(),
            stack(DEFAULT_SOC, &[&c, &c], -1).unwrap().contiguous_bytes()
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Embedding of a 1-D index equals IndexSelect along dim 0; of an
    /// index of any shape, that gather reshaped; a transposed weight gives
    /// its contiguous copy's result.
    #[test]
    fn embedding_is_index_select_of_rows(
        rows in 1usize..5,
        cols in 0usize..4,
        picks in prop::collection::vec(0usize..8, 0..7),
        split in 1usize..4,
    ) {
        let soc = "Ascend910B3";
        let w = arange(&[rows, cols]);
        let idx: Vec<i64> = picks.iter().map(|&p| (p % rows) as i64).collect();
        let flat = Tensor::from_slice(&[idx.len()], &idx).unwrap();
        let want = index_select(soc, &w, 0, &flat).unwrap();
        let got = embedding(soc, &w, &flat).unwrap();
        prop_assert_eq!(got.contiguous_bytes(), want.contiguous_bytes());
        if idx.len().is_multiple_of(split) && !idx.is_empty() {
            let shaped = Tensor::from_slice(&[split, idx.len() / split], &idx).unwrap();
            let g2 = embedding(soc, &w, &shaped).unwrap();
            prop_assert_eq!(g2.shape(), &[split, idx.len() / split, cols][..]);
            prop_assert_eq!(g2.contiguous_bytes(), want.contiguous_bytes());
        }
        let wt = transposed(&arange(&[cols, rows]));
        let c = wt.to_contiguous();
        prop_assert_eq!(
            embedding(soc, &wt, &flat).unwrap().contiguous_bytes(),
            embedding(soc, &c, &flat).unwrap().contiguous_bytes()
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Each pad equals IndexSelect along each padded dim with the mapped
    /// index list (ops.md §16, §17), and a view its contiguous copy.
    #[test]
    fn pads_equal_index_select_chains(
        shape in shape_strategy(2, 5, 4),
        pads in prop::collection::vec(0i64..6, 6),
        which in 0usize..8,
        transpose in any::<bool>(),
    ) {
        use cpu_ref::{pad, pad_kind, Op, PadMode};
        let ops = [
            Op::ReflectionPad1d, Op::ReflectionPad2d, Op::ReflectionPad3d,
            Op::ReplicationPad1d, Op::ReplicationPad2d, Op::ReplicationPad3d,
            Op::CircularPad2d, Op::CircularPad3d,
        ];
        let op = ops[which];
        let (mode, k) = pad_kind(op).unwrap();
        let x = arange(&shape);
        let x = if transpose { transposed(&x) } else { x };
        let padding = &pads[..2 * k];
        let got = pad(op, DEFAULT_SOC, &x, padding);
        let rank = shape.len();
        let valid = (rank == k + 1 || rank == k + 2)
            && (0..k).all(|j| {
                let n = x.shape()[rank - 1 - j] as i64;
                n > 0 && (mode == PadMode::Replicate
                    || (padding[2 * j] < n && padding[2 * j + 1] < n))
            })
            && x.shape()[usize::from(rank == k + 2)..].iter().all(|&n| n > 0);
        prop_assert_eq!(got.is_ok(), valid, "{:?} {:?} {:?}", op, x.shape(), padding);
        if let Ok(y) = got {
            let mut want = x.to_contiguous();
            for j in 0..k {
                let d = rank - 1 - j;
                let n = x.shape()[d] as i64;
                let (a, b) = (padding[2 * j], padding[2 * j + 1]);
                let idx: Vec<i64> = (0..n + a + b).map(|o| mode.source(o - a, n)).collect();
                let idx = Tensor::from_slice(&[idx.len()], &idx).unwrap();
                want = index_select(DEFAULT_SOC, &want, d as i64, &idx).unwrap();
            }
            prop_assert_eq!(y.shape(), want.shape());
            prop_assert_eq!(y.contiguous_bytes(), want.contiguous_bytes());
            let c = pad(op, DEFAULT_SOC, &x.to_contiguous(), padding).unwrap();
            prop_assert_eq!(c.contiguous_bytes(), y.contiguous_bytes());
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Permute equals the permuted strided view read in logical order, a
    /// view input its contiguous copy, and the inverse permutation undoes it.
    #[test]
    fn permute_equals_permuted_view(
        shape in shape_strategy(0, 5, 3),
        keys in prop::collection::vec(any::<u32>(), 5),
    ) {
        let x = arange(&shape);
        let r = shape.len();
        let mut order: Vec<usize> = (0..r).collect();
        order.sort_by_key(|&i| keys[i]);
        let dims: Vec<i64> = order.iter().map(|&d| d as i64).collect();
        let sh: Vec<usize> = order.iter().map(|&d| shape[d]).collect();
        let st: Vec<usize> = order.iter().map(|&d| x.strides()[d]).collect();
        let v = x.view(&sh, &st, 0).unwrap();
        let y = permute(DEFAULT_SOC, &x, &dims).unwrap();
        prop_assert_eq!(y.shape(), &sh[..]);
        prop_assert_eq!(y.contiguous_bytes(), v.contiguous_bytes());
        let t = transposed(&x);
        prop_assert_eq!(
            permute(DEFAULT_SOC, &t, &dims).unwrap().contiguous_bytes(),
            permute(DEFAULT_SOC, &t.to_contiguous(), &dims).unwrap().contiguous_bytes()
        );
        let mut inv = vec![0i64; r];
        for (k, &d) in order.iter().enumerate() {
            inv[d] = k as i64 - r as i64; // negative spelling
        }
        prop_assert_eq!(
            permute(DEFAULT_SOC, &y, &inv).unwrap().contiguous_bytes(),
            x.contiguous_bytes()
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Flip equals the view with the flipped dims read backwards (as
    /// indices), a view input its contiguous copy, and flipping twice is
    /// the identity.
    #[test]
    fn flip_equals_reversed_indices(
        shape in shape_strategy(0, 4, 3),
        mask in 0u8..16,
    ) {
        let x = arange(&shape);
        let r = shape.len();
        let dims: Vec<i64> = (0..r).filter(|k| mask >> k & 1 == 1).map(|k| k as i64 - r as i64 * (k as i64 % 2)).collect();
        let y = flip(DEFAULT_SOC, &x, &dims).unwrap();
        let got = y.to_vec::<i32>().unwrap();
        for (n, idx) in indices(&shape).iter().enumerate() {
            let src: Vec<usize> = idx.iter().enumerate().map(|(k, &i)| if mask >> k & 1 == 1 { shape[k] - 1 - i } else { i }).collect();
            let flat: usize = src.iter().zip(x.strides()).map(|(i, s)| i * s).sum();
            prop_assert_eq!(got[n], flat as i32);
        }
        prop_assert_eq!(flip(DEFAULT_SOC, &y, &dims).unwrap().contiguous_bytes(), x.contiguous_bytes());
        let t = transposed(&x);
        prop_assert_eq!(
            flip(DEFAULT_SOC, &t, &dims).unwrap().contiguous_bytes(),
            flip(DEFAULT_SOC, &t.to_contiguous(), &dims).unwrap().contiguous_bytes()
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Roll then roll back is the identity (any shifts, extremes
    /// included), a view input gives its contiguous copy's result, and the
    /// flat roll of a 1-D tensor is its roll along dim 0.
    #[test]
    fn roll_undoes_and_flat_matches_dim_zero(
        shape in shape_strategy(1, 4, 3),
        shifts in prop::collection::vec(any_i64(), 1..4),
        picks in prop::collection::vec(0usize..8, 3),
    ) {
        let x = arange(&shape);
        let r = shape.len();
        let dims: Vec<i64> = shifts.iter().zip(&picks).map(|(_, &p)| (p % r) as i64).collect();
        let y = roll(DEFAULT_SOC, &x, &shifts, &dims).unwrap();
        // Undo in two steps (a negated i64::MIN would overflow): -s = -(s+1) + 1.
        let back1: Vec<i64> = shifts.iter().map(|&s| -(s.wrapping_add(1)).max(i64::MIN + 1)).collect();
        let ones = vec![1i64; shifts.len()];
        let z = roll(DEFAULT_SOC, &roll(DEFAULT_SOC, &y, &back1, &dims).unwrap(), &ones, &dims).unwrap();
        if shifts.iter().all(|&s| s != i64::MAX) {
            prop_assert_eq!(z.contiguous_bytes(), x.contiguous_bytes());
        }
        let t = transposed(&x);
        prop_assert_eq!(
            roll(DEFAULT_SOC, &t, &shifts[..1], &[]).unwrap().contiguous_bytes(),
            roll(DEFAULT_SOC, &t.to_contiguous(), &shifts[..1], &[]).unwrap().contiguous_bytes()
        );
        let n: usize = shape.iter().product();
        let flat = x.view(&[n], &[1], 0).unwrap();
        prop_assert_eq!(
            roll(DEFAULT_SOC, &x, &shifts[..1], &[]).unwrap().contiguous_bytes(),
            roll(DEFAULT_SOC, &flat, &shifts[..1], &[0]).unwrap().contiguous_bytes()
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Expand equals the stride-0 broadcast view read in logical order,
    /// and a view input its contiguous copy's result.
    #[test]
    fn expand_equals_broadcast_view(
        shape in prop::collection::vec(prop_oneof![Just(1usize), 0usize..4], 0..4),
        lead in prop::collection::vec(0usize..3, 0..3),
        grow in prop::collection::vec(0usize..4, 4),
    ) {
        let x = arange(&shape);
        let mut size: Vec<i64> = lead.iter().map(|&v| v as i64).collect();
        let mut st = vec![0usize; lead.len()];
        for (d, &n) in shape.iter().enumerate() {
            if n == 1 {
                size.push(grow[d] as i64);
                st.push(if grow[d] == 1 { x.strides()[d] } else { 0 });
            } else {
                size.push(n as i64);
                st.push(x.strides()[d]);
            }
        }
        let sh: Vec<usize> = size.iter().map(|&v| v as usize).collect();
        let y = expand(DEFAULT_SOC, &x, &size).unwrap();
        prop_assert_eq!(y.shape(), &sh[..]);
        if !shape.contains(&0) {
            let v = x.view(&sh, &st, 0).unwrap();
            prop_assert_eq!(y.contiguous_bytes(), v.contiguous_bytes());
        }
        let t = transposed(&x);
        let mut tsize = size.clone();
        let r = shape.len();
        if r >= 2 {
            let off = tsize.len() - r;
            tsize.swap(off, off + 1);
        }
        prop_assert_eq!(
            expand(DEFAULT_SOC, &t, &tsize).unwrap().contiguous_bytes(),
            expand(DEFAULT_SOC, &t.to_contiguous(), &tsize).unwrap().contiguous_bytes()
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Repeat equals Cat of copies along each dim (one dim at a time), and
    /// a view input gives its contiguous copy's result.
    #[test]
    fn repeat_equals_concatenated_copies(
        shape in shape_strategy(1, 3, 3),
        reps in prop::collection::vec(0i64..3, 3),
    ) {
        let x = arange(&shape);
        let r = shape.len();
        let reps = &reps[..r];
        let mut want = x.clone();
        for (d, &k) in reps.iter().enumerate() {
            if k == 0 {
                let mut sh = want.shape().to_vec();
                sh[d] = 0;
                want = Tensor::from_bytes(want.dtype(), &sh, vec![]).unwrap();
                continue;
            }
            let copies: Vec<&Tensor> = (0..k).map(|_| &want).collect();
            want = cat(DEFAULT_SOC, &copies, d as i64).unwrap();
        }
        let y = repeat(DEFAULT_SOC, &x, reps).unwrap();
        prop_assert_eq!(y.shape(), want.shape());
        prop_assert_eq!(y.contiguous_bytes(), want.contiguous_bytes());
        let t = transposed(&x);
        prop_assert_eq!(
            repeat(DEFAULT_SOC, &t, reps).unwrap().contiguous_bytes(),
            repeat(DEFAULT_SOC, &t.to_contiguous(), reps).unwrap().contiguous_bytes()
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// SliceV2 equals Slice applied once per listed axis (in any order),
    /// a view input its contiguous copy's result, and never panics for
    /// any i64 starts, ends, axes and steps.
    #[test]
    fn slice_v2_equals_successive_slices(
        shape in shape_strategy(1, 4, 4),
        picks in prop::collection::vec((0usize..4, any_i64(), any_i64(), prop_oneof![1i64..4, any_i64()]), 0..4),
        raw_axes in prop::collection::vec(any_i64(), 0..3),
    ) {
        let x = arange(&shape);
        let rank = shape.len();
        let mut axes = Vec::new();
        let (mut starts, mut ends, mut steps) = (Vec::new(), Vec::new(), Vec::new());
        for &(a, st, en, step) in &picks {
            let a = a % rank;
            if axes.contains(&(a as i64)) || axes.contains(&(a as i64 - rank as i64)) {
                continue;
            }
            axes.push(if st % 2 == 0 { a as i64 } else { a as i64 - rank as i64 });
            starts.push(st);
            ends.push(en);
            steps.push(step);
        }
        let got = slice_v2(DEFAULT_SOC, &x, &starts, &ends, &axes, &steps);
        if steps.iter().any(|&s| s <= 0) {
            prop_assert!(got.is_err());
        } else {
            let got = got.unwrap();
            let mut want = x.clone();
            for i in 0..axes.len() {
                want = slice(DEFAULT_SOC, &want, axes[i], starts[i], ends[i], steps[i]).unwrap();
            }
            prop_assert_eq!(got.shape(), want.shape());
            prop_assert_eq!(got.contiguous_bytes(), want.contiguous_bytes());
            let t = transposed(&x);
            prop_assert_eq!(
                slice_v2(DEFAULT_SOC, &t, &starts, &ends, &axes, &steps).map(|y| y.contiguous_bytes()).ok(),
                slice_v2(DEFAULT_SOC, &t.to_contiguous(), &starts, &ends, &axes, &steps).map(|y| y.contiguous_bytes()).ok()
            );
        }
        let n = raw_axes.len();
        let _ = slice_v2(DEFAULT_SOC, &x, &raw_axes, &raw_axes, &raw_axes, &vec![1; n]);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// SliceV3 equals SliceV2 over every axis with `ends = begin + size`
    /// and steps 1 when the box lies inside `self`, and is refused (never
    /// a panic) otherwise, for any i64 begin and size.
    #[test]
    fn slice_v3_equals_slice_v2_box(
        shape in shape_strategy(1, 4, 4),
        picks in prop::collection::vec((0i64..5, 0i64..5), 4),
        wild in prop::collection::vec(any_i64(), 0..5),
    ) {
        let x = arange(&shape);
        let r = shape.len();
        let begin: Vec<i64> = picks[..r].iter().map(|p| p.0).collect();
        let size: Vec<i64> = picks[..r].iter().map(|p| p.1).collect();
        let inside = (0..r).all(|d| begin[d] + size[d] <= shape[d] as i64);
        let got = slice_v3(DEFAULT_SOC, &x, &begin, &size);
        prop_assert_eq!(got.is_ok(), inside);
        if let Ok(y) = got {
            let ends: Vec<i64> = (0..r).map(|d| begin[d] + size[d]).collect();
            let axes: Vec<i64> = (0..r as i64).collect();
            let want = slice_v2(DEFAULT_SOC, &x, &begin, &ends, &axes, &vec![1; r]).unwrap();
            prop_assert_eq!(y.shape(), want.shape());
            prop_assert_eq!(y.contiguous_bytes(), want.contiguous_bytes());
        }
        let n = wild.len();
        let _ = slice_v3(DEFAULT_SOC, &x, &wild, &wild[..n.min(r)]);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// The aclnn AsStrided equals the ATB one (section 3) wherever both
    /// accept (non-empty outputs), reads a view in its logical order, and
    /// never panics for any i64 size, stride and offset.
    #[test]
    fn as_strided_aclnn_equals_atb_where_both_hold(
        shape in shape_strategy(0, 3, 4),
        size in prop::collection::vec(0i64..4, 1..4),
        stride in prop::collection::vec(0i64..4, 4),
        offset in 0i64..6,
        wild in prop::collection::vec(any_i64(), 0..4),
    ) {
        let x = arange(&shape);
        let st = &stride[..size.len()];
        let got = as_strided_aclnn(DEFAULT_SOC, &x, &size, st, offset);
        if !size.contains(&0) {
            let atb = as_strided(DEFAULT_SOC, &x, &size, st, &[offset]);
            prop_assert_eq!(got.is_ok(), atb.is_ok());
            if let (Ok(a), Ok(b)) = (&got, &atb) {
                prop_assert_eq!(a.contiguous_bytes(), b.contiguous_bytes());
            }
        } else {
            prop_assert!(got.is_ok());
        }
        let t = transposed(&x);
        prop_assert_eq!(
            as_strided_aclnn(DEFAULT_SOC, &t, &size, st, offset).map(|y| y.contiguous_bytes()).ok(),
            as_strided_aclnn(DEFAULT_SOC, &t.to_contiguous(), &size, st, offset).map(|y| y.contiguous_bytes()).ok()
        );
        let n = wild.len();
        let _ = as_strided_aclnn(DEFAULT_SOC, &x, &wild, &wild, if n > 0 { wild[0] } else { 0 });
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// ViewCopy: where it succeeds, the window of the result reads back (by
    /// the aclnn AsStrided) as the window of src; every position outside
    /// the window keeps dst's element; views give what their contiguous
    /// copies give; any i64 windows never panic.
    #[test]
    fn view_copy_reads_back(
        dshape in shape_strategy(0, 3, 4),
        sshape in shape_strategy(0, 3, 4),
        size in prop::collection::vec(0i64..4, 1..4),
        dstride in prop::collection::vec(0i64..5, 4),
        sstride in prop::collection::vec(0i64..4, 4),
        doff in 0i64..6,
        soff in 0i64..6,
        wild in prop::collection::vec(any_i64(), 0..4),
    ) {
        let dst = arange(&dshape);
        let n = dst.numel() as i32;
        let svals: Vec<i32> = (0..sshape.iter().product::<usize>() as i32).map(|v| v + 1000).collect();
        let src = Tensor::from_slice(&sshape, &svals).unwrap();
        let k = size.len();
        let (dw, sw) = (
            Window { size: &size, stride: &dstride[..k], offset: doff },
            Window { size: &size, stride: &sstride[..k], offset: soff },
        );
        let got = view_copy(DEFAULT_SOC, &dst, dw, &src, sw);
        if let Ok(y) = &got {
            prop_assert_eq!(y.shape(), dst.shape());
            let out: Vec<i32> = y.to_vec().unwrap();
            if dst.numel() > 0 && src.numel() > 0 && !size.contains(&0) {
                let flat = Tensor::from_slice(&[out.len()], &out).unwrap();
                let a = as_strided_aclnn(DEFAULT_SOC, &flat, &size, dw.stride, doff).unwrap();
                let b = as_strided_aclnn(DEFAULT_SOC, &src, &size, sw.stride, soff).unwrap();
                prop_assert_eq!(a.contiguous_bytes(), b.contiguous_bytes());
                let mut inside = vec![false; out.len()];
                let pos = Tensor::from_slice(&[out.len()], &(0..n).collect::<Vec<i32>>()).unwrap();
                for p in as_strided_aclnn(DEFAULT_SOC, &pos, &size, dw.stride, doff).unwrap().to_vec::<i32>().unwrap() {
                    inside[p as usize] = true;
                }
                for (i, v) in out.iter().enumerate() {
                    if !inside[i] {
                        prop_assert_eq!(*v, i as i32);
                    }
                }
            } else {
                prop_assert_eq!(out, (0..n).collect::<Vec<i32>>());
            }
        }
        let (td, ts) = (transposed(&dst), transposed(&src));
        prop_assert_eq!(
            view_copy(DEFAULT_SOC, &td, dw, &ts, sw).map(|y| y.contiguous_bytes()).ok(),
            view_copy(DEFAULT_SOC, &td.to_contiguous(), dw, &ts.to_contiguous(), sw).map(|y| y.contiguous_bytes()).ok()
        );
        let m = wild.len();
        let ww = Window { size: &wild, stride: &wild, offset: if m > 0 { wild[0] } else { 0 } };
        let _ = view_copy(DEFAULT_SOC, &dst, ww, &src, ww);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// StridedSliceAssignV2: reading the assigned slice back (SliceV2 over
    /// the normalised ranges) gives the value; every other element keeps
    /// var's; any i64 arrays never panic.
    #[test]
    fn strided_slice_assign_reads_back(
        shape in shape_strategy(1, 3, 4),
        picks in prop::collection::vec((any_i64(), any_i64(), 1i64..4), 3),
        k in 0usize..4,
        wild in prop::collection::vec(any_i64(), 0..4),
    ) {
        let var = arange(&shape);
        let r = shape.len();
        let k = k.min(r);
        let begin: Vec<i64> = picks[..k].iter().map(|p| p.0).collect();
        let end: Vec<i64> = picks[..k].iter().map(|p| p.1).collect();
        let strides: Vec<i64> = (0..k).map(|i| if i == r - 1 { 1 } else { picks[i].2 }).collect();
        let ranges = strided_slice_assign_ranges(&shape, &begin, &end, &strides, None).unwrap();
        let vshape: Vec<usize> = ranges.iter().map(|x| x.2).collect();
        let n: usize = vshape.iter().product();
        let value = Tensor::from_slice(&vshape, &(0..n as i32).map(|v| -1 - v).collect::<Vec<_>>()).unwrap();
        let y = strided_slice_assign_v2(DEFAULT_SOC, &var, &value, &begin, &end, &strides, None).unwrap();
        let axes: Vec<i64> = (0..r as i64).collect();
        let st: Vec<i64> = ranges.iter().map(|x| x.0 as i64).collect();
        let en: Vec<i64> = ranges.iter().map(|x| (x.0 + x.1 * x.2) as i64).collect();
        let sp: Vec<i64> = ranges.iter().map(|x| x.1 as i64).collect();
        let back = slice_v2(DEFAULT_SOC, &y, &st, &en, &axes, &sp).unwrap();
        prop_assert_eq!(back.contiguous_bytes(), value.contiguous_bytes());
        let untouched = y.contiguous_bytes().chunks(4).filter(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]) >= 0).count();
        prop_assert_eq!(untouched, var.numel() - n);
        let m = wild.len();
        let _ = strided_slice_assign_v2(DEFAULT_SOC, &var, &value, &wild, &wild, &wild, Some(&wild[..m]));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// GatherV2 with a 1-D index equals IndexSelect; with that index
    /// reshaped to 2-D, the same bytes in the shape
    /// `shape[..dim] + index.shape + shape[dim+1..]`; a transposed `self`
    /// gives its contiguous copy's result.
    #[test]
    fn gather_v2_is_index_select_with_a_shaped_index(
        shape in prop::collection::vec(1usize..4, 1..4),
        dim_seed in 0usize..8,
        picks in prop::collection::vec(0usize..8, 0..7),
        split in 1usize..4,
    ) {
        let soc = "Ascend910B3";
        let x = arange(&shape);
        let d = dim_seed % shape.len();
        let n = shape[d];
        let idx: Vec<i64> = picks.iter().map(|&p| (p % n) as i64).collect();
        let flat = Tensor::from_slice(&[idx.len()], &idx).unwrap();
        let want = index_select(soc, &x, d as i64, &flat).unwrap();
        let got = gather_v2(soc, &x, d as i64 - shape.len() as i64, &flat).unwrap();
        prop_assert_eq!(got.shape(), want.shape());
        prop_assert_eq!(got.contiguous_bytes(), want.contiguous_bytes());
        if idx.len().is_multiple_of(split) && !idx.is_empty() {
            let shaped = Tensor::from_slice(&[split, idx.len() / split], &idx).unwrap();
            let g2 = gather_v2(soc, &x, d as i64, &shaped).unwrap();
            let mut s2 = shape[..d].to_vec();
            s2.extend([split, idx.len() / split]);
            s2.extend_from_slice(&shape[d + 1..]);
            prop_assert_eq!(g2.shape(), &s2[..]);
            prop_assert_eq!(g2.contiguous_bytes(), want.contiguous_bytes());
        }
        if shape.len() == 2 {
            let xt = transposed(&arange(&[shape[1], shape[0]]));
            let c = xt.to_contiguous();
            prop_assert_eq!(
                gather_v2(soc, &xt, d as i64, &flat).unwrap().contiguous_bytes(),
                gather_v2(soc, &c, d as i64, &flat).unwrap().contiguous_bytes()
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Gather against a naive restatement: along the last dim of a 2-D
    /// self, row r of out picks self[r][index[r][c]]; equals GatherV2 of
    /// that row when the index has one row; a transposed self gives its
    /// contiguous copy's result.
    #[test]
    fn gather_picks_elements_along_dim(
        rows in 1usize..4,
        cols in 1usize..4,
        irows in 1usize..4,
        icols in 0usize..5,
        picks in prop::collection::vec(0usize..16, 16),
        dim in 0i64..2,
    ) {
        let soc = "Ascend910B3";
        let x = arange(&[rows, cols]);
        let irows = irows.min(rows);
        let (ir, ic) = if dim == 1 { (irows, icols) } else { (icols, cols.min(irows)) };
        let n = if dim == 1 { cols } else { rows };
        let vals: Vec<i64> = (0..ir * ic).map(|k| (picks[k % 16] % n) as i64).collect();
        let idx = Tensor::from_slice(&[ir, ic], &vals).unwrap();
        let got = gather(soc, &x, dim, &idx).unwrap();
        prop_assert_eq!(got.shape(), &[ir, ic][..]);
        let xs = x.to_vec::<i32>().unwrap();
        let want: Vec<i32> = (0..ir * ic).map(|k| {
            let (r, c) = (k / ic, k % ic);
            let v = vals[k] as usize;
            if dim == 1 { xs[r * cols + v] } else { xs[v * cols + c] }
        }).collect();
        prop_assert_eq!(got.to_vec::<i32>().unwrap(), want);
        let xt = transposed(&arange(&[cols, rows]));
        if ir <= xt.shape()[0] || dim == 0 {
            let c = xt.to_contiguous();
            prop_assert_eq!(
                gather(soc, &xt, dim, &idx).map(|t| t.contiguous_bytes()),
                gather(soc, &c, dim, &idx).map(|t| t.contiguous_bytes())
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Take equals GatherV2 along dim 0 of `self`'s contiguous copy
    /// reshaped to 1-D, for a view of `self` too.
    #[test]
    fn take_is_a_flat_gather(
        rows in 1usize..4,
        cols in 1usize..4,
        picks in prop::collection::vec(0usize..64, 0..7),
        split in 1usize..4,
    ) {
        let soc = "Ascend910B3";
        let xt = transposed(&arange(&[cols, rows]));
        let n = rows * cols;
        let flat = Tensor::from_bytes(xt.dtype(), &[n], xt.contiguous_bytes()).unwrap();
        let idx: Vec<i64> = picks.iter().map(|&p| (p % n) as i64).collect();
        let shape: Vec<usize> = if idx.len().is_multiple_of(split) && !idx.is_empty() {
            vec![split, idx.len() / split]
        } else {
            vec![idx.len()]
        };
        let index = Tensor::from_slice(&shape, &idx).unwrap();
        let got = take(soc, &xt, &index).unwrap();
        let want = gather_v2(soc, &flat, 0, &index).unwrap();
        prop_assert_eq!(got.shape(), &shape[..]);
        prop_assert_eq!(got.contiguous_bytes(), want.contiguous_bytes());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// IndexCopy of the slices GatherV2 picked, written back where they
    /// came from, leaves `self` unchanged; writing them into a zero tensor
    /// puts each at its index (a naive restatement); a transposed `self`
    /// gives its contiguous copy's result.
    #[test]
    fn index_copy_writes_slices_back(
        rows in 1usize..4,
        cols in 1usize..4,
        picks in prop::collection::vec(0usize..8, 0..6),
        dim in 0i64..2,
    ) {
        let soc = "Ascend910B3";
        let x = arange(&[rows, cols]);
        let n = if dim == 0 { rows } else { cols };
        let idx: Vec<i64> = picks.iter().map(|&p| (p % n) as i64).collect();
        let index = Tensor::from_slice(&[idx.len()], &idx).unwrap();
        let src = gather_v2(soc, &x, dim, &index).unwrap();
        let back = index_copy(soc, &x, dim, &index, &src).unwrap();
        prop_assert_eq!(back.contiguous_bytes(), x.contiguous_bytes());
        let xt = transposed(&arange(&[cols, rows]));
        let c = xt.to_contiguous();
        prop_assert_eq!(
            index_copy(soc, &xt, dim, &index, &src).unwrap().contiguous_bytes(),
            index_copy(soc, &c, dim, &index, &src).unwrap().contiguous_bytes()
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// GatherNd with K = 1 equals GatherV2 along dim 0 of the index's
    /// first column; with K = rank, each tuple picks one element (a naive
    /// restatement); negative coordinates equal their wrapped values.
    #[test]
    fn gather_nd_restated(
        rows in 1usize..4,
        cols in 1usize..4,
        picks in prop::collection::vec(0usize..16, 0..6),
    ) {
        let soc = "Ascend910B3";
        let x = arange(&[rows, cols]);
        let r: Vec<i64> = picks.iter().map(|&p| (p % rows) as i64).collect();
        let i1 = Tensor::from_slice(&[r.len(), 1], &r).unwrap();
        let flat = Tensor::from_slice(&[r.len()], &r).unwrap();
        prop_assert_eq!(
            gather_nd(soc, &x, &i1, false).unwrap().contiguous_bytes(),
            gather_v2(soc, &x, 0, &flat).unwrap().contiguous_bytes()
        );
        let pairs: Vec<i64> = picks.iter().flat_map(|&p| [(p % rows) as i64, (p / 4 % cols) as i64]).collect();
        let i2 = Tensor::from_slice(&[picks.len(), 2], &pairs).unwrap();
        let got = gather_nd(soc, &x, &i2, false).unwrap().to_vec::<i32>().unwrap();
        let xs = x.to_vec::<i32>().unwrap();
        let want: Vec<i32> = pairs.chunks(2).map(|c| xs[c[0] as usize * cols + c[1] as usize]).collect();
        prop_assert_eq!(got, want);
        let neg: Vec<i64> = pairs.chunks(2).flat_map(|c| [c[0] - rows as i64, c[1] - cols as i64]).collect();
        let i3 = Tensor::from_slice(&[picks.len(), 2], &neg).unwrap();
        prop_assert_eq!(
            gather_nd(soc, &x, &i3, true).unwrap().contiguous_bytes(),
            gather_nd(soc, &x, &i2, false).unwrap().contiguous_bytes()
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// MaskedSelect with a mask of self's shape picks exactly the elements
    /// whose mask byte is set, in order (a naive restatement); a row mask
    /// broadcast over the rows equals the full mask it stands for; a
    /// transposed self gives its contiguous copy's result.
    #[test]
    fn masked_select_restated(
        rows in 1usize..4,
        cols in 1usize..4,
        bits in prop::collection::vec(any::<bool>(), 16),
    ) {
        let soc = "Ascend910B3";
        let x = arange(&[rows, cols]);
        let full: Vec<u8> = (0..rows * cols).map(|k| bits[k % 16] as u8).collect();
        let m = Tensor::from_bytes(cpu_ref::DType::Bool, &[rows, cols], full.clone()).unwrap();
        let got = masked_select(soc, &x, &m).unwrap().to_vec::<i32>().unwrap();
        let xs = x.to_vec::<i32>().unwrap();
        let want: Vec<i32> = xs.iter().zip(&full).filter(|(_, &b)| b != 0).map(|(v, _)| *v).collect();
        prop_assert_eq!(got, want);
        let row: Vec<u8> = (0..cols).map(|k| bits[k] as u8).collect();
        let rm = Tensor::from_bytes(cpu_ref::DType::Bool, &[cols], row.clone()).unwrap();
        let tiled: Vec<u8> = (0..rows).flat_map(|_| row.clone()).collect();
        let tm = Tensor::from_bytes(cpu_ref::DType::Bool, &[rows, cols], tiled).unwrap();
        prop_assert_eq!(
            masked_select(soc, &x, &rm).unwrap().contiguous_bytes(),
            masked_select(soc, &x, &tm).unwrap().contiguous_bytes()
        );
        let xt = transposed(&arange(&[cols, rows]));
        prop_assert_eq!(
            masked_select(soc, &xt, &m).unwrap().contiguous_bytes(),
            masked_select(soc, &xt.to_contiguous(), &m).unwrap().contiguous_bytes()
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Index with one member equals GatherV2 along dim 0; with an empty
    /// member then one, GatherV2 along dim 1; with two 1-D members,
    /// GatherNd on their pairs; negative values equal their wrapped ones;
    /// a transposed self gives its contiguous copy's result.
    #[test]
    fn index_restated(
        rows in 1usize..4,
        cols in 1usize..4,
        picks in prop::collection::vec(0usize..16, 1..6),
    ) {
        let soc = "Ascend910B3";
        let x = arange(&[rows, cols]);
        let r: Vec<i64> = picks.iter().map(|&p| (p % rows) as i64).collect();
        let c: Vec<i64> = picks.iter().map(|&p| (p / 4 % cols) as i64).collect();
        let ri = Tensor::from_slice(&[r.len()], &r).unwrap();
        let ci = Tensor::from_slice(&[c.len()], &c).unwrap();
        let none = Tensor::from_slice::<i64>(&[0], &[]).unwrap();
        prop_assert_eq!(
            cpu_ref::index(soc, &x, &[&ri]).unwrap().contiguous_bytes(),
            gather_v2(soc, &x, 0, &ri).unwrap().contiguous_bytes()
        );
        prop_assert_eq!(
            cpu_ref::index(soc, &x, &[&none, &ci]).unwrap().contiguous_bytes(),
            gather_v2(soc, &x, 1, &ci).unwrap().contiguous_bytes()
        );
        let pairs: Vec<i64> = r.iter().zip(&c).flat_map(|(&a, &b)| [a, b]).collect();
        let pi = Tensor::from_slice(&[r.len(), 2], &pairs).unwrap();
        let both = cpu_ref::index(soc, &x, &[&ri, &ci]).unwrap();
        prop_assert_eq!(
            both.contiguous_bytes(),
            gather_nd(soc, &x, &pi, false).unwrap().contiguous_bytes()
        );
        let rn: Vec<i64> = r.iter().map(|&v| v - rows as i64).collect();
        let rni = Tensor::from_slice(&[rn.len()], &rn).unwrap();
        prop_assert_eq!(
            cpu_ref::index(soc, &x, &[&rni, &ci]).unwrap().contiguous_bytes(),
            both.contiguous_bytes()
        );
        let xt = transposed(&arange(&[cols, rows]));
        prop_assert_eq!(
            cpu_ref::index(soc, &xt, &[&ri]).unwrap().contiguous_bytes(),
            cpu_ref::index(soc, &xt.to_contiguous(), &[&ri]).unwrap().contiguous_bytes()
        );
    }
}
