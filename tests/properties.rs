//! Every operator against cpu-ref, bit for bit, on random ranks 0..8 (zero
//! extents included), every dtype, contiguous and permuted inputs, and
//! parameters that include out-of-range and extreme i64 values; errors are
//! compared kind for kind.

mod common;

use common::*;
use cpu_ref::DType as R;
use npu_ops::{SampleMode, SampledSlice, Scalar};
use proptest::prelude::*;

fn any_dtype() -> impl Strategy<Value = R> {
    proptest::sample::select(R::ALL.to_vec())
}

/// A shape of rank 0..=8 with small extents (zero included), and a
/// permutation to view it through (or none).
fn shape_and_perm() -> impl Strategy<Value = (Vec<usize>, Option<Vec<usize>>)> {
    (0usize..=8)
        .prop_flat_map(|r| {
            let max = if r > 4 { 2 } else { 4 };
            (
                proptest::collection::vec(prop_oneof![9 => 1usize..=max, 1 => Just(0usize)], r),
                any::<bool>(),
                Just(r),
            )
        })
        .prop_flat_map(|(shape, permute, r)| {
            let perm = if permute && r >= 2 {
                Just((0..r).collect::<Vec<_>>())
                    .prop_shuffle()
                    .prop_map(Some)
                    .boxed()
            } else {
                Just(None).boxed()
            };
            (Just(shape), perm)
        })
}

fn param() -> impl Strategy<Value = i64> {
    prop_oneof![4 => -6i64..8, 1 => Just(i64::MIN), 1 => Just(i64::MAX), 1 => Just(i64::MIN + 1), 1 => Just(i64::MAX - 1)]
}

/// A dim for `rank`: mostly in `[-rank, rank)`, sometimes just outside,
/// sometimes extreme.
fn pick_dim(sel: u16, rank: usize) -> i64 {
    match sel % 20 {
        0 => i64::MIN,
        1 => i64::MAX,
        _ => {
            let r = rank.max(1) as i64;
            (sel as i64 / 20) % (2 * r + 2) - r - 1
        }
    }
}

/// An index into an extent `n`: mostly valid, sometimes out of range.
fn pick_index(sel: u16, n: usize, valid: bool) -> i64 {
    if valid && n > 0 {
        (sel as usize % n) as i64
    } else {
        match sel % 4 {
            0 => -1,
            1 => n as i64,
            2 => i64::MIN,
            _ => i64::MAX,
        }
    }
}

fn slice_dtype() -> impl Strategy<Value = R> {
    prop_oneof![4 => proptest::sample::select(vec![R::Float32, R::Float16, R::BFloat16, R::Int32, R::Int64, R::Int8, R::UInt8, R::Bool]), 1 => any_dtype()]
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 256,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn slice_matches_reference(d in slice_dtype(), (shape, perm) in shape_and_perm(), dim_sel in any::<u16>(), start in prop_oneof![3 => -3i64..3, 1 => param()], end in prop_oneof![3 => -2i64..6, 1 => param()], step in prop_oneof![8 => 1i64..4, 1 => Just(0), 1 => Just(-1), 1 => Just(i64::MAX)], seed in any::<u64>()) {
        let s = stream();
        let dim = pick_dim(dim_sel, shape.len());
        let x = ref_tensor(d, &shape, perm.as_deref(), seed);
        let want = cpu_ref::slice(rt().soc(), &x, dim, start, end, step);
        let got = s.slice(&upload(&s, &x), dim, start, end, step);
        check(got, want, &format!("slice {d} {shape:?} {perm:?} dim {dim} {start}..{end} step {step}"));
    }

    #[test]
    fn index_select_host_matches_reference(d in any_dtype(), (shape, perm) in shape_and_perm(), dim_sel in any::<u16>(), sels in proptest::collection::vec(any::<u16>(), 0..6), bad in proptest::option::weighted(0.2, any::<usize>()), wide in any::<bool>(), seed in any::<u64>()) {
        let s = stream();
        let dim = pick_dim(dim_sel, shape.len());
        let n = if shape.is_empty() { 1 } else { shape[(dim.rem_euclid(shape.len() as i64)) as usize] };
        let idx: Vec<i64> = sels.iter().enumerate().map(|(i, &v)| pick_index(v, n, bad.is_none_or(|b| b % sels.len().max(1) != i))).collect();
        let x = ref_tensor(d, &shape, perm.as_deref(), seed);
        let index = if wide {
            cpu_ref::Tensor::from_slice(&[idx.len()], &idx).unwrap()
        } else {
            let v: Vec<i32> = idx.iter().map(|&i| i.clamp(i32::MIN as i64, i32::MAX as i64) as i32).collect();
            cpu_ref::Tensor::from_slice(&[v.len()], &v).unwrap()
        };
        let want = cpu_ref::index_select(rt().soc(), &x, dim, &index);
        let host: Vec<i64> = if wide { idx.clone() } else { index.to_vec::<i32>().unwrap().into_iter().map(i64::from).collect() };
        let got = s.index_select_host(&upload(&s, &x), dim, &host);
        check(got, want, &format!("index_select {d} {shape:?} {perm:?} dim {dim} {host:?}"));
    }

    #[test]
    fn as_strided_matches_reference(d in any_dtype(), (shape, perm) in shape_and_perm(), dims in proptest::collection::vec((prop_oneof![12 => 1i64..4, 1 => Just(0), 1 => Just(i64::MAX)], prop_oneof![12 => 0i64..3, 1 => Just(-1), 1 => Just(i64::MAX)]), 0..4), offset in prop_oneof![12 => 0i64..3, 1 => Just(-1), 1 => Just(i64::MAX)], extra_stride in proptest::option::weighted(0.05, 0i64..3), seed in any::<u64>()) {
        let size: Vec<i64> = dims.iter().map(|p| p.0).collect();
        let mut stride: Vec<i64> = dims.iter().map(|p| p.1).collect();
        stride.extend(extra_stride);
        let s = stream();
        let x = ref_tensor(d, &shape, perm.as_deref(), seed);
        let want = cpu_ref::as_strided(rt().soc(), &x, &size, &stride, &[offset]);
        let got = s.as_strided(&upload(&s, &x), &size, &stride, offset);
        check(got, want, &format!("as_strided {d} {shape:?} {perm:?} size {size:?} stride {stride:?} offset {offset}"));
    }

    #[test]
    fn sampled_slice_matches_reference(d in any_dtype(), (shape, perm) in shape_and_perm(), mode in 0usize..5, params in proptest::collection::vec((prop_oneof![8 => -5i64..6, 1 => Just(i64::MIN), 1 => Just(i64::MAX)], 0i64..5, prop_oneof![8 => -3i64..4, 1 => Just(i64::MIN), 1 => Just(i64::MAX)]), 0..4), axes in proptest::option::of(proptest::collection::vec(-4i64..4, 0..4)), fill in -3i64..4, seed in any::<u64>()) {
        prop_assume!(shape.len() <= 4);
        let s = stream();
        let x = ref_tensor(d, &shape, perm.as_deref(), seed);
        let n = axes.as_ref().map_or(shape.len(), |a| a.len());
        let take = |k: usize, i: usize| params.get(i).map_or(if k == 1 { 2 } else { 0 }, |p: &(i64, i64, i64)| [p.0, p.1, p.2][k]);
        let start: Vec<i64> = (0..n).map(|i| take(0, i)).collect();
        let size: Vec<i64> = (0..n).map(|i| take(1, i)).collect();
        let stride: Vec<i64> = (0..n).map(|i| take(2, i)).collect();
        let fill_v = if d == R::Bool { Scalar::Int(fill.rem_euclid(2)) } else if d.name().starts_with('u') { Scalar::Int(fill.abs()) } else { Scalar::Int(fill) };
        let ref_fill = match fill_v { Scalar::Int(v) => cpu_ref::Scalar::Int(v), _ => unreachable!() };
        let m = [SampleMode::StrictBounds, SampleMode::Wrap, SampleMode::Clamp, SampleMode::Fill, SampleMode::Reflect][mode];
        let name = ["strict_bounds", "wrap", "clamp", "fill", "reflect"][mode];
        // A fill value with a mode other than FILL is an invalid argument
        // (sometimes given, to check that).
        let give_fill = mode == 3 || seed % 7 == 0;
        let rm = cpu_ref::SampleMode::from_name(name, give_fill.then_some(ref_fill));
        let mut p = SampledSlice::new(&start, &size, &stride, m);
        if give_fill {
            p = p.with_fill(fill_v);
        }
        let Ok(rm) = rm else {
            prop_assert_eq!(s.sampled_slice(&upload(&s, &x), &p).unwrap_err().kind(), "invalid_argument");
            return Ok(());
        };
        let mut rp = cpu_ref::SampledSliceParams::new(&start, &size, &stride, rm);
        if let Some(a) = &axes {
            p = p.with_axes(a);
            rp = rp.with_axes(a);
        }
        let want = cpu_ref::sampled_slice(rt().soc(), &x, &rp);
        let dx = upload(&s, &x);
        let got = s.sampled_slice(&dx, &p);
        let what = format!("sampled_slice {d} {shape:?} {perm:?} {p:?}");
        // The dynamic form (parameters as int64 device tensors) must agree.
        let t = |v: &[i64]| npu_ops::Tensor::from_slice(&s, &[v.len()], v).unwrap();
        let dynamic = s.sampled_slice_dynamic(&dx, &t(&start), &t(&size), &t(&stride), axes.as_ref().map(|a| t(a)).as_ref(), m, p.fill);
        match (&got, &dynamic) {
            (Ok(a), Ok(b)) => prop_assert_eq!(a.to_bytes().unwrap(), b.to_bytes().unwrap()),
            (Err(a), Err(b)) => prop_assert_eq!(a.kind(), b.kind()),
            _ => prop_assert!(false, "{}: static and dynamic forms disagree", what),
        }
        check(got, want, &what);
    }

    #[test]
    fn subtensor_matches_reference(d in any_dtype(), (shape, perm) in shape_and_perm(), k_sel in any::<u8>(), sels in proptest::collection::vec(any::<u16>(), 8), bad in proptest::option::weighted(0.15, any::<u8>()), size_sel in any::<u16>(), seed in any::<u64>()) {
        let s = stream();
        let k = (k_sel as usize) % shape.len().max(1) + usize::from(k_sel % 11 == 0);
        let coords: Vec<i64> = (0..k.min(8)).map(|j| pick_index(sels[j], shape.get(j).copied().unwrap_or(0), bad.is_none_or(|b| b as usize % k.max(1) != j))).collect();
        let room = shape.get(k.wrapping_sub(1)).map_or(1, |&n| (n as i64).saturating_sub(coords.last().copied().unwrap_or(0)));
        let size = match size_sel % 10 { 0 => 0, 1 => room.saturating_add(1), 2 => i64::MAX, _ => 1 + (size_sel as i64 / 10) % room.max(1) };
        let x = ref_tensor(d, &shape, perm.as_deref(), seed);
        let want = cpu_ref::subtensor(rt().soc(), &x, &coords, size);
        let dx = upload(&s, &x);
        let got = dx.subtensor(&coords, size);
        if let Ok(v) = &got {
            prop_assert!(v.shares_storage(&dx), "a sub-tensor is a view");
        }
        check(got, want, &format!("subtensor {d} {shape:?} {perm:?} {coords:?} {size}"));
    }

    #[test]
    fn tril_triu_match_reference(d in any_dtype(), (shape, perm) in shape_and_perm(), lower in any::<bool>(), diagonal in prop_oneof![6 => -5i64..6, 1 => param()], seed in any::<u64>()) {
        let s = stream();
        let x = ref_tensor(d, &shape, perm.as_deref(), seed);
        let dx = upload(&s, &x);
        let (want, got) = if lower {
            (cpu_ref::tril(rt().soc(), &x, diagonal), s.tril(&dx, diagonal))
        } else {
            (cpu_ref::triu(rt().soc(), &x, diagonal), s.triu(&dx, diagonal))
        };
        check(got, want, &format!("tri lower {lower} {d} {shape:?} {perm:?} diagonal {diagonal}"));
    }

    #[test]
    fn pads_match_reference(d in any_dtype(), (shape, perm) in shape_and_perm(), which in 0usize..8, padding in proptest::collection::vec(prop_oneof![10 => 0i64..4, 1 => Just(-1), 1 => param()], 0..8), seed in any::<u64>()) {
        let s = stream();
        let op = [
            cpu_ref::Op::ReflectionPad1d, cpu_ref::Op::ReflectionPad2d, cpu_ref::Op::ReflectionPad3d,
            cpu_ref::Op::ReplicationPad1d, cpu_ref::Op::ReplicationPad2d, cpu_ref::Op::ReplicationPad3d,
            cpu_ref::Op::CircularPad2d, cpu_ref::Op::CircularPad3d,
        ][which];
        let x = ref_tensor(d, &shape, perm.as_deref(), seed);
        let want = cpu_ref::pad(op, rt().soc(), &x, &padding);
        let dx = upload(&s, &x);
        let got = match op {
            cpu_ref::Op::ReflectionPad1d => s.reflection_pad1d(&dx, &padding),
            cpu_ref::Op::ReflectionPad2d => s.reflection_pad2d(&dx, &padding),
            cpu_ref::Op::ReflectionPad3d => s.reflection_pad3d(&dx, &padding),
            cpu_ref::Op::ReplicationPad1d => s.replication_pad1d(&dx, &padding),
            cpu_ref::Op::ReplicationPad2d => s.replication_pad2d(&dx, &padding),
            cpu_ref::Op::ReplicationPad3d => s.replication_pad3d(&dx, &padding),
            cpu_ref::Op::CircularPad2d => s.circular_pad2d(&dx, &padding),
            _ => s.circular_pad3d(&dx, &padding),
        };
        check(got, want, &format!("{} {d} {shape:?} {perm:?} {padding:?}", op.name()));
    }
}

proptest! {
    #![proptest_config(config())]

    /// Permute (spec section 18): a shuffled order of the dims, some
    /// entries spelt negative, now and then a wrong length, an entry out of
    /// range (extremes included) or a repeat.
    #[test]
    fn permute_matches_reference(d in any_dtype(), (shape, perm) in shape_and_perm(), keys in proptest::collection::vec(any::<u32>(), 8), neg in any::<u8>(), broken in 0u8..12, bad in param(), seed in any::<u64>()) {
        let s = stream();
        let r = shape.len();
        let mut order: Vec<usize> = (0..r).collect();
        order.sort_by_key(|&k| keys[k]);
        let mut dims: Vec<i64> = order.iter().enumerate().map(|(k, &v)| if neg >> (k % 8) & 1 == 1 { v as i64 - r as i64 } else { v as i64 }).collect();
        match broken {
            0 => { dims.pop(); }
            1 => dims.push(bad),
            2 if r > 0 => dims[0] = bad,
            3 if r > 1 => dims[1] = dims[0],
            _ => {}
        }
        let x = ref_tensor(d, &shape, perm.as_deref(), seed);
        let want = cpu_ref::permute(rt().soc(), &x, &dims);
        let got = s.permute(&upload(&s, &x), &dims);
        check(got, want, &format!("permute {d} {shape:?} {perm:?} dims {dims:?}"));
    }
}

proptest! {
    #![proptest_config(config())]

    /// Flip (spec section 19): a random subset of the dims, some spelt
    /// negative, now and then an entry out of range (extremes included) or
    /// a repeat.
    #[test]
    fn flip_matches_reference(d in any_dtype(), (shape, perm) in shape_and_perm(), mask in any::<u8>(), neg in any::<u8>(), broken in 0u8..10, bad in param(), seed in any::<u64>()) {
        let s = stream();
        let r = shape.len().max(1) as i64;
        let mut dims: Vec<i64> = (0..r).filter(|&k| mask >> k & 1 == 1).map(|k| if neg >> k & 1 == 1 { k - r } else { k }).collect();
        match broken {
            0 => dims.push(bad),
            1 if !dims.is_empty() => dims.push(dims[0]),
            _ => {}
        }
        let x = ref_tensor(d, &shape, perm.as_deref(), seed);
        let want = cpu_ref::flip(rt().soc(), &x, &dims);
        let got = s.flip(&upload(&s, &x), &dims);
        check(got, want, &format!("flip {d} {shape:?} {perm:?} dims {dims:?}"));
    }
}

proptest! {
    #![proptest_config(config())]

    /// Roll (spec section 20): random (shift, dim) pairs with extreme
    /// shifts, repeats, a flat roll, and now and then bad lengths or dims.
    #[test]
    fn roll_matches_reference(d in any_dtype(), (shape, perm) in shape_and_perm(), pairs in proptest::collection::vec((param(), any::<u16>()), 0..4), broken in 0u8..10, bad in param(), seed in any::<u64>()) {
        let s = stream();
        let r = shape.len();
        let mut shifts: Vec<i64> = pairs.iter().map(|p| p.0).collect();
        let mut dims: Vec<i64> = if r == 0 { vec![] } else { pairs.iter().map(|p| pick_dim(p.1, r)).collect() };
        if dims.is_empty() {
            shifts.truncate(1);
            if shifts.is_empty() {
                shifts.push(bad);
            }
        }
        match broken {
            0 => shifts.push(bad),
            1 => { dims.push(bad); shifts.push(1); }
            _ => {}
        }
        let x = ref_tensor(d, &shape, perm.as_deref(), seed);
        let want = cpu_ref::roll(rt().soc(), &x, &shifts, &dims);
        let got = s.roll(&upload(&s, &x), &shifts, &dims);
        check(got, want, &format!("roll {d} {shape:?} {perm:?} shifts {shifts:?} dims {dims:?}"));
    }
}

proptest! {
    #![proptest_config(config())]

    /// Expand (spec section 21): leading dims and extent-1 dims grown,
    /// now and then a bad entry (negative, extreme, mismatched) or a short
    /// size.
    #[test]
    fn expand_matches_reference(d in any_dtype(), (shape, perm) in shape_and_perm(), lead in proptest::collection::vec(0i64..3, 0..3), grow in proptest::collection::vec(0i64..3, 8), broken in 0u8..10, bad in param(), seed in any::<u64>()) {
        let s = stream();
        let mut size: Vec<i64> = lead.clone();
        for (k, &n) in shape.iter().enumerate() {
            size.push(if n == 1 { grow[k] } else { n as i64 });
        }
        size.truncate(8);
        match broken {
            0 if !size.is_empty() => { let k = bad.unsigned_abs() as usize % size.len(); size[k] = bad; }
            1 if !size.is_empty() => { size.remove(0); }
            _ => {}
        }
        let x = ref_tensor(d, &shape, perm.as_deref(), seed);
        let want = cpu_ref::expand(rt().soc(), &x, &size);
        let got = s.expand(&upload(&s, &x), &size);
        check(got, want, &format!("expand {d} {shape:?} {perm:?} size {size:?}"));
    }
}

proptest! {
    #![proptest_config(config())]

    /// Repeat (spec section 22): small repeats with leading entries, now
    /// and then a bad entry or a short list.
    #[test]
    fn repeat_matches_reference(d in any_dtype(), (shape, perm) in shape_and_perm(), reps in proptest::collection::vec(0i64..3, 8), extra in 0usize..2, broken in 0u8..10, bad in param(), seed in any::<u64>()) {
        let s = stream();
        let n = (shape.len() + extra).min(8);
        let mut reps: Vec<i64> = reps[..n].to_vec();
        match broken {
            0 if !reps.is_empty() => { let k = bad.unsigned_abs() as usize % reps.len(); reps[k] = bad; }
            1 if !reps.is_empty() => { reps.remove(0); }
            _ => {}
        }
        let x = ref_tensor(d, &shape, perm.as_deref(), seed);
        let want = cpu_ref::repeat(rt().soc(), &x, &reps);
        if want.as_ref().is_ok_and(|w| w.numel() > 1 << 16) {
            return Ok(());
        }
        let got = s.repeat(&upload(&s, &x), &reps);
        check(got, want, &format!("repeat {d} {shape:?} {perm:?} repeats {reps:?}"));
    }
}

proptest! {
    #![proptest_config(config())]

    /// SliceV2 (spec section 31): distinct axes (some spelt negative) with
    /// any bounds and steps, now and then a bad axis, length or step.
    #[test]
    fn slice_v2_matches_reference(d in any_dtype(), (shape, perm) in shape_and_perm(), picks in proptest::collection::vec((any::<bool>(), param(), param(), 1i64..4), 8), broken in 0u8..12, bad in param(), seed in any::<u64>()) {
        let s = stream();
        let r = shape.len() as i64;
        let mut a: [Vec<i64>; 4] = Default::default();
        for (k, &(on, st, en, sp)) in picks.iter().take(shape.len()).enumerate() {
            if on {
                let k = k as i64;
                a[2].push(if st % 2 == 0 { k } else { k - r });
                a[0].push(st);
                a[1].push(en);
                a[3].push(sp);
            }
        }
        match broken {
            0 => a[2].push(bad),
            1 => a[0].push(bad),
            2 => a[1].push(bad),
            3 if !a[3].is_empty() => a[3][0] = bad,
            4 if !a[2].is_empty() => { let v = a[2][0]; a[2].push(v); a[0].push(0); a[1].push(1); a[3].push(1); }
            _ => {}
        }
        let x = ref_tensor(d, &shape, perm.as_deref(), seed);
        let want = cpu_ref::slice_v2(rt().soc(), &x, &a[0], &a[1], &a[2], &a[3]);
        let got = s.slice_v2(&upload(&s, &x), &a[0], &a[1], &a[2], &a[3]);
        check(got, want, &format!("slice_v2 {d} {shape:?} {perm:?} {a:?}"));
    }
}

proptest! {
    #![proptest_config(config())]

    /// SliceV3 (spec section 31): a box inside self, now and then a bad
    /// length, begin or size.
    #[test]
    fn slice_v3_matches_reference(d in any_dtype(), (shape, perm) in shape_and_perm(), picks in proptest::collection::vec((0u8..255, 0u8..255), 8), broken in 0u8..10, bad in param(), seed in any::<u64>()) {
        let s = stream();
        let mut begin: Vec<i64> = Vec::new();
        let mut size: Vec<i64> = Vec::new();
        for (&n, &(p, q)) in shape.iter().zip(&picks) {
            let b = p as i64 % (n as i64 + 1);
            begin.push(b);
            size.push(q as i64 % (n as i64 - b + 1));
        }
        match broken {
            0 => begin.push(0),
            1 if !size.is_empty() => { size.pop(); }
            2 if !begin.is_empty() => { let k = bad.unsigned_abs() as usize % begin.len(); begin[k] = bad; }
            3 if !size.is_empty() => { let k = bad.unsigned_abs() as usize % size.len(); size[k] = bad; }
            _ => {}
        }
        let x = ref_tensor(d, &shape, perm.as_deref(), seed);
        let want = cpu_ref::slice_v3(rt().soc(), &x, &begin, &size);
        let got = s.slice_v3(&upload(&s, &x), &begin, &size);
        check(got, want, &format!("slice_v3 {d} {shape:?} {perm:?} {begin:?} {size:?}"));
    }
}

proptest! {
    #![proptest_config(config())]

    /// The aclnn AsStrided (spec section 33): small windows over any view
    /// (overlapping and empty ones included), now and then a bad entry.
    #[test]
    fn as_strided_aclnn_matches_reference(d in any_dtype(), (shape, perm) in shape_and_perm(), size in proptest::collection::vec(0i64..4, 1..4), stride in proptest::collection::vec(0i64..4, 4), offset in 0i64..8, broken in 0u8..10, bad in param(), seed in any::<u64>()) {
        let s = stream();
        let mut size = size;
        let mut stride = stride[..size.len()].to_vec();
        let mut offset = offset;
        match broken {
            0 => { let k = bad.unsigned_abs() as usize % size.len(); size[k] = bad; }
            1 => { let k = bad.unsigned_abs() as usize % stride.len(); stride[k] = bad; }
            2 => offset = bad,
            3 => stride.push(1),
            _ => {}
        }
        let x = ref_tensor(d, &shape, perm.as_deref(), seed);
        let want = cpu_ref::as_strided_aclnn(rt().soc(), &x, &size, &stride, offset);
        if want.as_ref().is_ok_and(|w| w.numel() > 1 << 16) {
            return Ok(());
        }
        let got = s.as_strided_aclnn(&upload(&s, &x), &size, &stride, offset);
        check(got, want, &format!("as_strided_aclnn {d} {shape:?} {perm:?} {size:?} {stride:?} {offset}"));
    }
}

proptest! {
    #![proptest_config(config())]

    /// ViewCopy (spec section 34): small windows of one size over any
    /// views (src a second random view), fresh and in place, now and then a
    /// bad entry.
    #[test]
    fn view_copy_matches_reference(d in any_dtype(), (shape, perm) in shape_and_perm(), (sshape, sperm) in shape_and_perm(), size in proptest::collection::vec(0i64..4, 1..4), strides in proptest::collection::vec(0i64..5, 8), offs in (0i64..8, 0i64..8), broken in 0u8..12, bad in param(), seed in any::<u64>()) {
        let s = stream();
        let k = size.len();
        let (mut dsize, mut dstride, mut sstride) = (size.clone(), strides[..k].to_vec(), strides[4..4 + k].to_vec());
        let mut ssize = size;
        let (mut doff, mut soff) = offs;
        match broken {
            0 => { let j = bad.unsigned_abs() as usize % k; dsize[j] = bad; ssize[j] = bad; }
            1 => { let j = bad.unsigned_abs() as usize % k; dstride[j] = bad; }
            2 => { let j = bad.unsigned_abs() as usize % k; sstride[j] = bad; }
            3 => doff = bad,
            4 => soff = bad,
            5 => ssize.push(1),
            _ => {}
        }
        let dst = ref_tensor(d, &shape, perm.as_deref(), seed);
        let src = ref_tensor(d, &sshape, sperm.as_deref(), seed ^ 0x5eed);
        let (rw, rs) = (
            cpu_ref::Window { size: &dsize, stride: &dstride, offset: doff },
            cpu_ref::Window { size: &ssize, stride: &sstride, offset: soff },
        );
        let want = cpu_ref::view_copy(rt().soc(), &dst, rw, &src, rs);
        let (dw, sw) = (npu_ops::Window::new(&dsize, &dstride, doff), npu_ops::Window::new(&ssize, &sstride, soff));
        let (gd, gs) = (upload(&s, &dst), upload(&s, &src));
        let what = format!("view_copy {d} {shape:?} {perm:?} {sshape:?} {sperm:?} {dw:?} {sw:?}");
        check(s.view_copy(&gd, dw, &gs, sw), want.clone(), &what);
        let got = s.view_copy_into(&gd, dw, &gs, sw, &gd).map(|()| gd.clone());
        // In place (dst a permuted view at most): the same result. (An empty
        // dst may carry strides that `_into`'s out rule refuses.)
        if dst.numel() > 0 {
            check(got, want, &format!("{what} (in place)"));
        }
    }
}

proptest! {
    #![proptest_config(config())]

    /// StridedSliceAssignV2 (spec section 35): random bounds and strides on
    /// leading axes over any view, the value of the sliced shape (now and
    /// then a bad entry), compared as the new value of var.
    #[test]
    fn strided_slice_assign_matches_reference(d in any_dtype(), (shape, perm) in shape_and_perm(), picks in proptest::collection::vec((param(), param(), 1i64..3), 8), k in 0usize..4, broken in 0u8..10, bad in param(), seed in any::<u64>()) {
        let s = stream();
        let r = shape.len();
        let k = k.min(r);
        let b: Vec<i64> = picks[..k].iter().map(|p| p.0).collect();
        let e: Vec<i64> = picks[..k].iter().map(|p| p.1).collect();
        let mut st: Vec<i64> = (0..k).map(|i| if i + 1 == r { 1 } else { picks[i].2 }).collect();
        let mut axes = None;
        match broken {
            0 if !st.is_empty() => st[0] = bad,
            1 => axes = Some(vec![bad; k]),
            _ => {}
        }
        let var = ref_tensor(d, &shape, perm.as_deref(), seed);
        let vshape = cpu_ref::strided_slice_assign_ranges(&shape, &b, &e, &st, axes.as_deref())
            .map(|v| v.iter().map(|t| t.2).collect::<Vec<usize>>())
            .unwrap_or_else(|_| vec![1]);
        let value = ref_tensor(d, &vshape, None, seed ^ 1);
        let want = cpu_ref::strided_slice_assign_v2(rt().soc(), &var, &value, &b, &e, &st, axes.as_deref());
        let gvar = upload(&s, &var);
        let got = s
            .strided_slice_assign_v2(&gvar, &upload(&s, &value), &b, &e, &st, axes.as_deref())
            .map(|()| gvar.clone());
        check(got, want, &format!("strided_slice_assign_v2 {d} {shape:?} {perm:?} {b:?} {e:?} {st:?} {axes:?}"));
    }
}

proptest! {
    #![proptest_config(config())]

    /// GatherV2 (spec section 24): an index of rank 0 to 3 along any dim
    /// (now and then out of range, or a bad dim), int32 or int64; an
    /// out-of-range value is found by the device at the read.
    #[test]
    fn gather_v2_matches_reference(d in any_dtype(), (shape, perm) in shape_and_perm(), dim_sel in any::<u16>(), ishape in proptest::collection::vec(0usize..3, 0..4), sels in proptest::collection::vec(any::<u16>(), 8), bad in proptest::option::weighted(0.15, any::<usize>()), wide in any::<bool>(), seed in any::<u64>()) {
        let s = stream();
        let dim = pick_dim(dim_sel, shape.len());
        let r = shape.len().max(1) as i64;
        let n = if shape.is_empty() || !(-r..r).contains(&dim) { 1 } else { shape[dim.rem_euclid(r) as usize] };
        let cnt: usize = ishape.iter().product();
        let idx: Vec<i64> = (0..cnt).map(|i| pick_index(sels[i % 8].wrapping_add(i as u16), n, bad.is_none_or(|b| b % cnt.max(1) != i))).collect();
        let x = ref_tensor(d, &shape, perm.as_deref(), seed);
        let index = if wide {
            cpu_ref::Tensor::from_slice(&ishape, &idx).unwrap()
        } else {
            let v: Vec<i32> = idx.iter().map(|&i| i.clamp(i32::MIN as i64, i32::MAX as i64) as i32).collect();
            cpu_ref::Tensor::from_slice(&ishape, &v).unwrap()
        };
        let want = cpu_ref::gather_v2(rt().soc(), &x, dim, &index);
        let got = s.gather_v2(&upload(&s, &x), dim, &upload(&s, &index)).and_then(|t| { t.wait()?; Ok(t) });
        check(got, want, &format!("gather_v2 {d} {shape:?} {perm:?} dim {dim} index {ishape:?} {idx:?}"));
    }
}

proptest! {
    #![proptest_config(config())]

    /// Gather (spec section 25): an index of `self`'s rank (now and then
    /// another rank), extents up to `self`'s plus one, values mostly in
    /// range; an out-of-range value is found by the device at the read.
    #[test]
    fn gather_matches_reference(d in any_dtype(), (shape, perm) in shape_and_perm(), dim_sel in any::<u16>(), grow in proptest::collection::vec(0usize..3, 8), other_rank in 0u8..12, sels in proptest::collection::vec(any::<u16>(), 8), bad in proptest::option::weighted(0.15, any::<usize>()), wide in any::<bool>(), seed in any::<u64>()) {
        let s = stream();
        let dim = pick_dim(dim_sel, shape.len());
        let r = shape.len().max(1) as i64;
        let n = if shape.is_empty() || !(-r..r).contains(&dim) { 1 } else { shape[dim.rem_euclid(r) as usize] };
        let mut ishape: Vec<usize> = shape.iter().zip(&grow).map(|(&e, &g)| (e + g).saturating_sub(1)).collect();
        if other_rank == 0 { if ishape.len() < 8 { ishape.push(1) } else { ishape.pop(); } }
        let cnt: usize = ishape.iter().product();
        if cnt > 4096 { return Ok(()); }
        let idx: Vec<i64> = (0..cnt).map(|i| pick_index(sels[i % 8].wrapping_add(i as u16), n, bad.is_none_or(|b| b % cnt.max(1) != i))).collect();
        let x = ref_tensor(d, &shape, perm.as_deref(), seed);
        let index = if wide {
            cpu_ref::Tensor::from_slice(&ishape, &idx).unwrap()
        } else {
            let v: Vec<i32> = idx.iter().map(|&i| i.clamp(i32::MIN as i64, i32::MAX as i64) as i32).collect();
            cpu_ref::Tensor::from_slice(&ishape, &v).unwrap()
        };
        let want = cpu_ref::gather(rt().soc(), &x, dim, &index);
        let got = s.gather(&upload(&s, &x), dim, &upload(&s, &index)).and_then(|t| { t.wait()?; Ok(t) });
        check(got, want, &format!("gather {d} {shape:?} {perm:?} dim {dim} index {ishape:?} {idx:?}"));
    }
}

proptest! {
    #![proptest_config(config())]

    /// Take (spec section 26): an index of rank 0 to 3 into `self` read
    /// flat, now and then out of range; found by the device at the read.
    #[test]
    fn take_matches_reference(d in any_dtype(), (shape, perm) in shape_and_perm(), ishape in proptest::collection::vec(0usize..3, 0..4), sels in proptest::collection::vec(any::<u16>(), 8), bad in proptest::option::weighted(0.15, any::<usize>()), wide in any::<bool>(), seed in any::<u64>()) {
        let s = stream();
        let n: usize = shape.iter().product();
        let cnt: usize = ishape.iter().product();
        let idx: Vec<i64> = (0..cnt).map(|i| pick_index(sels[i % 8].wrapping_add(i as u16), n, bad.is_none_or(|b| b % cnt.max(1) != i))).collect();
        let x = ref_tensor(d, &shape, perm.as_deref(), seed);
        let index = if wide {
            cpu_ref::Tensor::from_slice(&ishape, &idx).unwrap()
        } else {
            let v: Vec<i32> = idx.iter().map(|&i| i.clamp(i32::MIN as i64, i32::MAX as i64) as i32).collect();
            cpu_ref::Tensor::from_slice(&ishape, &v).unwrap()
        };
        let want = cpu_ref::take(rt().soc(), &x, &index);
        let got = s.take(&upload(&s, &x), &upload(&s, &index)).and_then(|t| { t.wait()?; Ok(t) });
        check(got, want, &format!("take {d} {shape:?} {perm:?} index {ishape:?} {idx:?}"));
    }
}

proptest! {
    #![proptest_config(config())]

    /// IndexCopy (spec section 27): the out-of-place and in-place forms
    /// against cpu-ref, an index of 0 to 4 values (now and then out of
    /// range) along any dim, a source of the matching shape (now and then
    /// not).
    #[test]
    fn index_copy_matches_reference(d in any_dtype(), (shape, perm) in shape_and_perm(), dim_sel in any::<u16>(), k in 0usize..5, sels in proptest::collection::vec(any::<u16>(), 8), bad in proptest::option::weighted(0.15, any::<usize>()), wrong in 0u8..12, inplace in any::<bool>(), seed in any::<u64>()) {
        let s = stream();
        let dim = pick_dim(dim_sel, shape.len());
        let r = shape.len().max(1) as i64;
        let xs: Vec<usize> = if shape.is_empty() { vec![1] } else { shape.clone() };
        let ok_dim = (-r..r).contains(&dim);
        let n = if ok_dim { xs[dim.rem_euclid(r) as usize] } else { 1 };
        let idx: Vec<i64> = (0..k).map(|i| pick_index(sels[i % 8].wrapping_add(i as u16), n, bad.is_none_or(|b| b % k.max(1) != i))).collect();
        let mut ss = xs.clone();
        if ok_dim { ss[dim.rem_euclid(r) as usize] = k; }
        if wrong == 0 { if ss.len() < 8 { ss.push(1) } else { ss.pop(); } }
        if ss.iter().product::<usize>() > 1 << 14 { return Ok(()); }
        let x = ref_tensor(d, &shape, perm.as_deref(), seed);
        let src = ref_tensor(d, &ss, None, seed ^ 1);
        let index = cpu_ref::Tensor::from_slice(&[idx.len()], &idx).unwrap();
        let want = cpu_ref::index_copy(rt().soc(), &x, dim, &index, &src);
        let (gx, gi, gs) = (upload(&s, &x), upload(&s, &index), upload(&s, &src));
        let got = if inplace {
            s.index_copy_inplace(&gx, dim, &gi, &gs).map(|()| gx.clone())
        } else {
            s.index_copy(&gx, dim, &gi, &gs)
        }
        .and_then(|t| { t.wait()?; Ok(t) });
        check(got, want, &format!("index_copy {d} {shape:?} {perm:?} dim {dim} index {idx:?} source {ss:?} in place {inplace}"));
    }
}

proptest! {
    #![proptest_config(config())]

    /// GatherNd (spec section 28): tuples of K coordinates (K from 0 to
    /// rank + 1), now and then out of range or negative, with and without
    /// negative coordinates allowed; found by the device at the read.
    #[test]
    fn gather_nd_matches_reference(d in any_dtype(), (shape, perm) in shape_and_perm(), k_sel in 0usize..10, lead in proptest::collection::vec(0usize..3, 0..3), sels in proptest::collection::vec(any::<u16>(), 8), bad in proptest::option::weighted(0.15, any::<usize>()), negative in any::<bool>(), flip in any::<bool>(), seed in any::<u64>()) {
        let s = stream();
        let k = k_sel % (shape.len() + 2);
        let mut ishape = lead.clone();
        ishape.push(k);
        let cnt: usize = ishape.iter().product();
        let idx: Vec<i64> = (0..cnt).map(|p| {
            let n = shape.get(p % k.max(1)).copied().unwrap_or(1);
            let v = pick_index(sels[p % 8].wrapping_add(p as u16), n, bad.is_none_or(|b| b % cnt.max(1) != p));
            if flip && negative && v >= 0 && (v as usize) < n { v - n as i64 } else { v }
        }).collect();
        let x = ref_tensor(d, &shape, perm.as_deref(), seed);
        let index = cpu_ref::Tensor::from_slice(&ishape, &idx).unwrap();
        let want = cpu_ref::gather_nd(rt().soc(), &x, &index, negative);
        let got = s.gather_nd(&upload(&s, &x), &upload(&s, &index), negative).and_then(|t| { t.wait()?; Ok(t) });
        check(got, want, &format!("gather_nd {d} {shape:?} {perm:?} index {ishape:?} {idx:?} negative {negative}"));
    }
}

proptest! {
    #![proptest_config(config())]

    /// MaskedSelect (spec section 29): a bool or uint8 mask of a suffix of
    /// `self`'s shape (broadcast, now and then extents of 1 or a bad one).
    #[test]
    fn masked_select_matches_reference(d in any_dtype(), (shape, perm) in shape_and_perm(), keep_sel in any::<u8>(), ones in any::<u8>(), bad in 0u8..16, bits in proptest::collection::vec(any::<u8>(), 64), uint8 in any::<bool>(), seed in any::<u64>()) {
        let s = stream();
        let keep = keep_sel as usize % (shape.len() + 1);
        let mut ms: Vec<usize> = shape[shape.len() - keep..].to_vec();
        for (k, e) in ms.iter_mut().enumerate() {
            if ones >> (k % 8) & 1 == 1 { *e = 1; }
        }
        if bad == 0 && !ms.is_empty() { ms[0] += 1; }
        let n: usize = ms.iter().product();
        if n > 4096 { return Ok(()); }
        let bytes: Vec<u8> = (0..n).map(|k| bits[k % 64] % 3 % 2).collect();
        let mask = cpu_ref::Tensor::from_bytes(if uint8 { R::UInt8 } else { R::Bool }, &ms, bytes).unwrap();
        let x = ref_tensor(d, &shape, perm.as_deref(), seed);
        let want = cpu_ref::masked_select(rt().soc(), &x, &mask);
        let got = s.masked_select(&upload(&s, &x), &upload(&s, &mask));
        check(got, want, &format!("masked_select {d} {shape:?} {perm:?} mask {ms:?}"));
    }
}

proptest! {
    #![proptest_config(config())]

    /// Index (spec section 30): from 0 to rank + 1 members, each empty
    /// (its dim kept whole), a 1-D bool mask, or int32/int64 of a shape that broadcasts
    /// (or, now and then, not), values now and then out of range or
    /// negative; found by the device at the read or on the host.
    #[test]
    fn index_matches_reference(d in any_dtype(), (shape, perm) in shape_and_perm(), n_sel in 0usize..10, kinds in proptest::collection::vec(0u8..7, 9), bits in proptest::collection::vec(any::<bool>(), 8), sels in proptest::collection::vec(any::<u16>(), 8), bad in proptest::option::weighted(0.15, any::<usize>()), seed in any::<u64>()) {
        let s = stream();
        let n = n_sel % (shape.len() + 2);
        let xs: Vec<usize> = if shape.is_empty() { vec![1] } else { shape.clone() };
        let mut members = Vec::new();
        let mut p = 0usize;
        for (j, kind) in kinds.iter().take(n).enumerate() {
            let ext = xs.get(j).copied().unwrap_or(1);
            // 0: empty; 1: [2]; 2: [2, 1]; 3: [1]; 4: 0-D; 5: [3] (may not broadcast).
            let mshape: Vec<usize> = match kind { 0 => vec![0], 1 => vec![2], 2 => vec![2, 1], 3 => vec![1], 4 => vec![], _ => vec![3] };
            let cnt: usize = mshape.iter().product();
            let vals: Vec<i64> = (0..cnt).map(|q| {
                p += 1;
                let v = pick_index(sels[p % 8].wrapping_add(p as u16), ext, bad.is_none_or(|b| b % 16 != p));
                if q % 2 == 1 && v >= 0 && (v as usize) < ext { v - ext as i64 } else { v }
            }).collect();
            // 6: a 1-D bool mask of the dim's extent (the mask read back).
            if *kind == 6 {
                let bytes: Vec<u8> = (0..ext).map(|q| bits[q % 8] as u8).collect();
                members.push(cpu_ref::Tensor::from_bytes(R::Bool, &[ext], bytes).unwrap());
                continue;
            }
            let t = if j % 2 == 0 {
                cpu_ref::Tensor::from_slice(&mshape, &vals).unwrap()
            } else {
                let v32: Vec<i32> = vals.iter().map(|&v| v.clamp(i32::MIN as i64, i32::MAX as i64) as i32).collect();
                cpu_ref::Tensor::from_slice(&mshape, &v32).unwrap()
            };
            members.push(t);
        }
        let x = ref_tensor(d, &shape, perm.as_deref(), seed);
        let refs: Vec<&cpu_ref::Tensor> = members.iter().collect();
        let want = cpu_ref::index(rt().soc(), &x, &refs);
        let gm: Vec<npu_ops::Tensor> = members.iter().map(|m| upload(&s, m)).collect();
        let gr: Vec<&npu_ops::Tensor> = gm.iter().collect();
        let got = s.index(&upload(&s, &x), &gr).and_then(|t| { t.wait()?; Ok(t) });
        check(got, want, &format!("index {d} {shape:?} {perm:?} members {members:?}"));
    }
}
