//! Generates `tests/cases/generated.jsonl`: the project's broad conformance
//! suite, every expected output and error kind computed by cpu-ref (never by
//! the simulator). Deterministic; run `cargo run -p npu-ops-cli --example gen_cases` and
//! commit the result.
//!
//! It also gives every hand-written case of `tests/cases/seeds.jsonl` a
//! `soc` (the runner's default, `Ascend910B3`, which the seeds were written
//! for) where it names none, so that `--soc`, which applies only to cases
//! without one, never changes what the project's suite checks. The lines
//! are otherwise kept as written.

use cpu_ref::{DType, Family, SampleMode, SampledSliceParams, Scalar, Tensor};
use serde_json::{json, Value};
use std::io::Write;

/// One SoC per product family.
const SOCS: [&str; 5] = [
    "Ascend910A",
    "Ascend910B3",
    "Ascend910_9391",
    "Ascend310P3",
    "Ascend310B1",
];

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo) as u64) as i64
    }
    fn extreme(&mut self, lo: i64, hi: i64) -> i64 {
        match self.below(12) {
            0 => i64::MIN,
            1 => i64::MAX,
            2 => i64::MIN + 1,
            _ => self.range(lo, hi),
        }
    }
}

/// One element as the format writes it.
fn value(d: DType, b: &[u8]) -> Value {
    let f = |x: f64| {
        if x.is_nan() {
            json!("nan")
        } else if x == f64::INFINITY {
            json!("inf")
        } else if x == f64::NEG_INFINITY {
            json!("-inf")
        } else {
            json!(x)
        }
    };
    match d {
        DType::Float32 => f(f32::from_le_bytes(b.try_into().unwrap()) as f64),
        DType::Float64 => f(f64::from_le_bytes(b.try_into().unwrap())),
        DType::Float16 => f(half::f16::from_bits(u16::from_le_bytes([b[0], b[1]])).to_f64()),
        DType::BFloat16 => f(half::bf16::from_bits(u16::from_le_bytes([b[0], b[1]])).to_f64()),
        DType::Int8 => json!(b[0] as i8),
        DType::UInt8 => json!(b[0]),
        DType::Int16 => json!(i16::from_le_bytes([b[0], b[1]])),
        DType::UInt16 => json!(u16::from_le_bytes([b[0], b[1]])),
        DType::Int32 => json!(i32::from_le_bytes(b.try_into().unwrap())),
        DType::UInt32 => json!(u32::from_le_bytes(b.try_into().unwrap())),
        DType::Int64 => json!(i64::from_le_bytes(b.try_into().unwrap())),
        DType::UInt64 => json!(u64::from_le_bytes(b.try_into().unwrap())),
        DType::Bool => json!(b[0] != 0),
        DType::Complex64 => json!([
            value(DType::Float32, &b[..4]),
            value(DType::Float32, &b[4..])
        ]),
        DType::Complex128 => json!([
            value(DType::Float64, &b[..8]),
            value(DType::Float64, &b[8..])
        ]),
    }
}

/// Element bytes that the format can express exactly: small integers,
/// halves, and a few specials (canonical NaN, infinities, -0).
fn element(d: DType, r: &mut Rng) -> Vec<u8> {
    let special = r.below(16);
    let x: f64 = match special {
        0 => f64::NAN,
        1 => f64::INFINITY,
        2 => -0.0,
        _ => r.range(-64, 64) as f64 / 4.0,
    };
    let int = r.range(-100, 100);
    match d {
        DType::Float32 => (x as f32).to_le_bytes().to_vec(),
        DType::Float64 => x.to_le_bytes().to_vec(),
        DType::Float16 => half::f16::from_f64(x).to_bits().to_le_bytes().to_vec(),
        DType::BFloat16 => half::bf16::from_f64(x).to_bits().to_le_bytes().to_vec(),
        DType::Int8 => (int as i8).to_le_bytes().to_vec(),
        DType::UInt8 => (int.unsigned_abs() as u8).to_le_bytes().to_vec(),
        DType::Int16 => (int as i16 * 300).to_le_bytes().to_vec(),
        DType::UInt16 => (int.unsigned_abs() as u16 * 600).to_le_bytes().to_vec(),
        DType::Int32 => (int as i32 * 1_000_000).to_le_bytes().to_vec(),
        DType::UInt32 => (int.unsigned_abs() as u32 * 40_000_000)
            .to_le_bytes()
            .to_vec(),
        DType::Int64 => (int * 1_000_000_000_000).to_le_bytes().to_vec(),
        DType::UInt64 => (int.unsigned_abs() * 100_000_000_000_000_000)
            .to_le_bytes()
            .to_vec(),
        DType::Bool => vec![(int & 1) as u8],
        DType::Complex64 => [(x as f32).to_le_bytes(), ((int as f32) / 2.0).to_le_bytes()].concat(),
        DType::Complex128 => [x.to_le_bytes(), ((int as f64) / 2.0).to_le_bytes()].concat(),
    }
}

fn storage(d: DType, shape: &[usize], r: &mut Rng) -> Tensor {
    let n: usize = shape.iter().product();
    let bytes: Vec<u8> = (0..n).flat_map(|_| element(d, r)).collect();
    Tensor::from_bytes(d, shape, bytes).unwrap()
}

fn tensor_json(t: &Tensor) -> Value {
    let es = t.dtype().size();
    let data: Vec<Value> = t
        .contiguous_bytes()
        .chunks(es)
        .map(|b| value(t.dtype(), b))
        .collect();
    json!({"dtype": t.dtype().name(), "shape": t.shape(), "data": data})
}

/// The input: storage plus, for a view, `input.view`.
fn input_json(storage: &Tensor, view: &Tensor) -> Value {
    let mut v = tensor_json(storage);
    if view.shape() != storage.shape() || view.strides() != storage.strides() || view.offset() != 0
    {
        v["view"] =
            json!({"shape": view.shape(), "strides": view.strides(), "offset": view.offset()});
    }
    v
}

fn expect(r: Result<Tensor, cpu_ref::RefError>) -> Value {
    match r {
        Ok(t) => tensor_json(&t),
        Err(e) => json!({"error": e.kind()}),
    }
}

/// A random input: contiguous, or a transposed / offset view of a storage.
fn input(d: DType, r: &mut Rng, max_rank: usize) -> (Tensor, Tensor) {
    let rank = r.below(max_rank as u64 + 1) as usize;
    let shape: Vec<usize> = (0..rank)
        .map(|_| {
            if r.below(10) == 0 {
                0
            } else {
                1 + r.below(4) as usize
            }
        })
        .collect();
    match (r.below(3), rank) {
        (1, 2..) => {
            // A transposed view of the storage.
            let mut s2 = shape.clone();
            s2.swap(0, rank - 1);
            let st = storage(d, &s2, r);
            let mut strides = st.strides().to_vec();
            strides.swap(0, rank - 1);
            let v = st.view(&shape, &strides, 0).unwrap();
            (st, v)
        }
        (2, 1..) if !shape.contains(&0) => {
            // Every other element along dim 0, from an offset.
            let mut s2 = shape.clone();
            s2[0] = shape[0] * 2 + 1;
            let st = storage(d, &s2, r);
            let mut strides = st.strides().to_vec();
            strides[0] *= 2;
            let off = st.strides()[0];
            let v = st.view(&shape, &strides, off).unwrap();
            (st, v)
        }
        _ => {
            let st = storage(d, &shape, r);
            (st.clone(), st)
        }
    }
}

fn main() {
    let mut out: Vec<Value> = Vec::new();
    let mut r = Rng(0x5EED_CA5E);
    let n = std::cell::Cell::new(0usize);
    let push = |out: &mut Vec<Value>,
                op: &str,
                soc: &str,
                x: (&Tensor, &Tensor),
                params: Value,
                e: Value,
                tag: &str| {
        n.set(n.get() + 1);
        let n = n.get();
        out.push(json!({"id": format!("{op}/{tag}-{n}"), "op": op, "soc": soc, "input": input_json(x.0, x.1), "params": params, "expect": e}));
    };

    // Every family x operator x dtype, on a small transposed input.
    for soc in SOCS {
        let fam = format!("{:?}", Family::from_soc(soc).unwrap()).to_lowercase();
        for d in DType::ALL {
            let st = storage(d, &[4, 3], &mut r);
            let x = st.view(&[3, 4], &[1, 3], 0).unwrap();
            let tag = format!("{fam}-{}", d.name());
            push(
                &mut out,
                "slice",
                soc,
                (&st, &x),
                json!({"dim": 1, "start": -3, "end": 4, "step": 2}),
                expect(cpu_ref::slice(soc, &x, 1, -3, 4, 2)),
                &tag,
            );
            let idx = Tensor::from_slice(&[3], &[2i32, 0, 2]).unwrap();
            push(
                &mut out,
                "index_select",
                soc,
                (&st, &x),
                json!({"dim": 0, "index": tensor_json(&idx)}),
                expect(cpu_ref::index_select(soc, &x, 0, &idx)),
                &tag,
            );
            push(
                &mut out,
                "as_strided",
                soc,
                (&st, &x),
                json!({"size": [2, 3], "stride": [1, 2], "offset": 1}),
                expect(cpu_ref::as_strided(soc, &x, &[2, 3], &[1, 2], &[1])),
                &tag,
            );
            let p = SampledSliceParams::new(&[-1, 3], &[4, 3], &[1, -1], SampleMode::Clamp);
            push(
                &mut out,
                "sampled_slice",
                soc,
                (&st, &x),
                json!({"start": [-1, 3], "size": [4, 3], "stride": [1, -1], "mode": "clamp"}),
                expect(cpu_ref::sampled_slice(soc, &x, &p)),
                &tag,
            );
            push(
                &mut out,
                "subtensor",
                soc,
                (&st, &x),
                json!({"start_coord": [1], "first_out_dim_size": 2}),
                expect(cpu_ref::subtensor(soc, &x, &[1], 2)),
                &tag,
            );
        }
    }

    let a2 = "Ascend910B3";
    let slice_dtypes = [
        DType::Float32,
        DType::Float16,
        DType::BFloat16,
        DType::Int32,
        DType::Int64,
        DType::Int8,
        DType::UInt8,
        DType::Bool,
    ];
    // Slice: random shapes, views, zero extents, extreme parameters, errors.
    for k in 0..300 {
        let d = if k % 5 == 0 {
            DType::ALL[r.below(15) as usize]
        } else {
            slice_dtypes[r.below(8) as usize]
        };
        let (st, x) = input(d, &mut r, 4);
        let rank = x.rank() as i64;
        let dim = if r.below(8) == 0 {
            r.extreme(-rank - 2, rank + 2)
        } else {
            r.range(-rank.max(1), rank.max(1))
        };
        let (start, end) = (r.extreme(-6, 6), r.extreme(-6, 8));
        let step = match r.below(10) {
            0 => 0,
            1 => -1,
            2 => i64::MAX,
            _ => r.range(1, 4),
        };
        push(
            &mut out,
            "slice",
            a2,
            (&st, &x),
            json!({"dim": dim, "start": start, "end": end, "step": step}),
            expect(cpu_ref::slice(a2, &x, dim, start, end, step)),
            "random",
        );
    }
    // IndexSelect: int32/int64, rank-0 index, 0-D input, out-of-range.
    for k in 0..300 {
        let d = DType::ALL[r.below(15) as usize];
        let (st, x) = input(d, &mut r, 4);
        let rank = x.rank().max(1) as i64;
        let dim = if r.below(10) == 0 {
            r.extreme(-rank - 2, rank + 2)
        } else {
            r.range(-rank, rank)
        };
        let n = if x.rank() == 0 {
            1
        } else {
            x.shape()[dim.rem_euclid(rank) as usize] as i64
        };
        let len = if x.rank() == 0 {
            1
        } else {
            r.below(5) as usize
        };
        let vals: Vec<i64> = (0..len)
            .map(|_| {
                if r.below(8) == 0 {
                    r.extreme(-3, n + 3)
                } else {
                    r.range(0, n.max(1))
                }
            })
            .collect();
        let idx = match (k % 3, len) {
            (0, 1) => Tensor::scalar(vals[0]),
            (1, _) => Tensor::from_slice(
                &[len],
                &vals
                    .iter()
                    .map(|&v| v.clamp(i32::MIN as i64, i32::MAX as i64) as i32)
                    .collect::<Vec<_>>(),
            )
            .unwrap(),
            _ => Tensor::from_slice(&[len], &vals).unwrap(),
        };
        push(
            &mut out,
            "index_select",
            a2,
            (&st, &x),
            json!({"dim": dim, "index": tensor_json(&idx)}),
            expect(cpu_ref::index_select(a2, &x, dim, &idx)),
            "random",
        );
    }
    // AsStrided: overlapping windows, zero strides, errors, extremes.
    for _ in 0..250 {
        let d = DType::ALL[r.below(15) as usize];
        let (st, x) = input(d, &mut r, 3);
        let m = 1 + r.below(3) as usize;
        let mut size: Vec<i64> = (0..m)
            .map(|_| {
                if r.below(15) == 0 {
                    r.extreme(-1, 1)
                } else {
                    r.range(1, 4)
                }
            })
            .collect();
        let mut stride: Vec<i64> = (0..m)
            .map(|_| {
                if r.below(15) == 0 {
                    r.extreme(-2, 0)
                } else {
                    r.range(0, 3)
                }
            })
            .collect();
        if r.below(20) == 0 {
            size.clear();
        }
        if r.below(20) == 0 {
            stride.push(1);
        }
        let offset = if r.below(12) == 0 {
            r.extreme(-2, 0)
        } else {
            r.range(0, 3)
        };
        push(
            &mut out,
            "as_strided",
            a2,
            (&st, &x),
            json!({"size": size, "stride": stride, "offset": offset}),
            expect(cpu_ref::as_strided(a2, &x, &size, &stride, &[offset])),
            "random",
        );
    }
    // Sampled slice: every mode, with and without axes, static and dynamic.
    let modes = ["strict_bounds", "wrap", "clamp", "fill", "reflect"];
    for k in 0..500 {
        let d = DType::ALL[r.below(15) as usize];
        let (st, x) = input(d, &mut r, 3);
        let rank = x.rank();
        let mode_name = modes[k % 5];
        let with_axes = r.below(3) == 0 && rank > 0;
        let axes: Vec<i64> = if with_axes {
            let mut a: Vec<i64> = (0..rank as i64).collect();
            a.truncate(1 + r.below(rank as u64) as usize);
            a.iter()
                .map(|&v| if r.below(2) == 0 { v - rank as i64 } else { v })
                .collect()
        } else {
            vec![]
        };
        let m = if with_axes { axes.len() } else { rank };
        let start: Vec<i64> = (0..m)
            .map(|_| {
                if r.below(15) == 0 {
                    r.extreme(-4, 4)
                } else {
                    r.range(-4, 5)
                }
            })
            .collect();
        let size: Vec<i64> = (0..m)
            .map(|_| if r.below(20) == 0 { -1 } else { r.range(0, 5) })
            .collect();
        let stride: Vec<i64> = (0..m)
            .map(|_| {
                if r.below(15) == 0 {
                    r.extreme(-2, 2)
                } else {
                    r.range(-2, 3)
                }
            })
            .collect();
        let fill_v = match d {
            DType::Bool => 1,
            _ => r.range(0, 5),
        };
        let mode = match mode_name {
            "strict_bounds" => SampleMode::StrictBounds,
            "wrap" => SampleMode::Wrap,
            "clamp" => SampleMode::Clamp,
            "fill" => SampleMode::Fill(Scalar::Int(fill_v)),
            _ => SampleMode::Reflect,
        };
        let mut p = SampledSliceParams::new(&start, &size, &stride, mode);
        let mut params = json!({"start": start, "size": size, "stride": stride, "mode": mode_name});
        if mode_name == "fill" {
            params["fill"] = json!(fill_v);
        }
        if with_axes {
            p = p.with_axes(&axes);
            params["axes"] = json!(axes);
        }
        if k % 4 == 1 {
            params["dynamic"] = json!(true);
        }
        push(
            &mut out,
            "sampled_slice",
            a2,
            (&st, &x),
            params,
            expect(cpu_ref::sampled_slice(a2, &x, &p)),
            mode_name,
        );
    }
    // Sub-tensor views.
    for _ in 0..200 {
        let d = DType::ALL[r.below(15) as usize];
        let (st, x) = input(d, &mut r, 4);
        let k = r.below(x.rank() as u64 + 1) as usize;
        let coords: Vec<i64> = (0..k)
            .map(|j| {
                if r.below(10) == 0 {
                    r.extreme(-1, 5)
                } else {
                    r.range(0, x.shape()[j].max(1) as i64)
                }
            })
            .collect();
        let size = if r.below(10) == 0 {
            r.extreme(-1, 5)
        } else {
            r.range(1, 4)
        };
        push(
            &mut out,
            "subtensor",
            a2,
            (&st, &x),
            json!({"start_coord": coords, "first_out_dim_size": size}),
            expect(cpu_ref::subtensor(a2, &x, &coords, size)),
            "random",
        );
    }

    // Add and Mul: every family x dtype (with itself and with float32),
    // then random dtype pairs, broadcasts, views, alphas, out dtypes and
    // in-place forms on A2. Every expectation from cpu-ref.
    let alpha_json = |a: Scalar| match a {
        Scalar::Bool(b) => json!(b),
        Scalar::Int(v) => json!(v),
        Scalar::UInt(v) => json!(v),
        Scalar::Float(v) => value(DType::Float64, &v.to_le_bytes()),
        Scalar::Complex(re, im) => json!([
            value(DType::Float64, &re.to_le_bytes()),
            value(DType::Float64, &im.to_le_bytes())
        ]),
    };
    for soc in SOCS {
        let fam = format!("{:?}", Family::from_soc(soc).unwrap()).to_lowercase();
        for d in DType::ALL {
            for dy in [d, DType::Float32] {
                let st = storage(d, &[3, 2], &mut r);
                let x = st.view(&[2, 3], &[1, 2], 0).unwrap();
                let y = storage(dy, &[3], &mut r);
                let tag = format!("{fam}-{}-{}", d.name(), dy.name());
                push(
                    &mut out,
                    "add",
                    soc,
                    (&st, &x),
                    json!({"other": tensor_json(&y), "alpha": 2}),
                    expect(cpu_ref::add(soc, &x, &y, Scalar::Int(2))),
                    &tag,
                );
                push(
                    &mut out,
                    "mul",
                    soc,
                    (&st, &x),
                    json!({"other": tensor_json(&y)}),
                    expect(cpu_ref::mul(soc, &x, &y)),
                    &tag,
                );
            }
        }
    }
    for _ in 0..400 {
        let dx = DType::ALL[r.below(15) as usize];
        let dy = DType::ALL[r.below(15) as usize];
        let (st, x) = input(dx, &mut r, 3);
        // other: a suffix of x's shape, some extents 1, sometimes one wrong.
        let keep = r.below(x.rank() as u64 + 1) as usize;
        let yshape: Vec<usize> = x.shape()[x.rank() - keep..]
            .iter()
            .map(|&e| match r.below(8) {
                0 => 1,
                1 => e + 1,
                _ => e,
            })
            .collect();
        let y = storage(dy, &yshape, &mut r);
        let alpha = match r.below(6) {
            0 => Scalar::Bool(r.below(2) == 1),
            1 => Scalar::Float(r.range(-8, 8) as f64 / 4.0),
            2 => Scalar::Complex(0.5, r.range(-2, 2) as f64),
            3 => Scalar::Int(r.extreme(-3, 3)),
            _ => Scalar::Int(r.range(-3, 3)),
        };
        let mode = r.below(4);
        let od = DType::ALL[r.below(15) as usize];
        let (mut ap, mut mp) = (
            json!({"other": tensor_json(&y), "alpha": alpha_json(alpha)}),
            json!({"other": tensor_json(&y)}),
        );
        let (ea, em, tag) = match mode {
            0 => {
                ap["out_dtype"] = json!(od.name());
                mp["out_dtype"] = json!(od.name());
                (
                    cpu_ref::add_cast(a2, &x, &y, alpha, od),
                    cpu_ref::mul_cast(a2, &x, &y, od),
                    "random-into",
                )
            }
            1 => {
                ap["inplace"] = json!(true);
                mp["inplace"] = json!(true);
                (
                    cpu_ref::add_inplace(a2, &x, &y, alpha),
                    cpu_ref::mul_inplace(a2, &x, &y),
                    "random-inplace",
                )
            }
            _ => (
                cpu_ref::add(a2, &x, &y, alpha),
                cpu_ref::mul(a2, &x, &y),
                "random",
            ),
        };
        push(&mut out, "add", a2, (&st, &x), ap, expect(ea), tag);
        push(&mut out, "mul", a2, (&st, &x), mp, expect(em), tag);
    }

    // The branches that added Cat/Stack and the fills/Cast each appended
    // their cases after the same point; both blocks start from that point's
    // random state and case number, so every earlier case keeps its line.
    let (fork_r, fork_n) = (r.0, n.get());

    // Cat: every family x dtype (three members: a transposed one, an
    // offset one, a plain one), then random lists on A2: ranks 1 to 4,
    // members empty along dim, dropped 1-D empty members, views, bad dims,
    // shapes, dtypes, and out dtypes. The list is `input` then
    // `params.others`; every expectation from cpu-ref.
    let others_json = |ms: &[(Tensor, Tensor)]| -> Value {
        Value::Array(ms.iter().map(|(st, v)| input_json(st, v)).collect())
    };
    for soc in SOCS {
        let fam = format!("{:?}", Family::from_soc(soc).unwrap()).to_lowercase();
        for d in DType::ALL {
            let st0 = storage(d, &[3, 2], &mut r);
            let x0 = st0.view(&[2, 3], &[1, 2], 0).unwrap();
            let st1 = storage(d, &[5, 3], &mut r);
            let x1 = st1.view(&[2, 3], &[6, 1], 3).unwrap();
            let x2 = storage(d, &[1, 3], &mut r);
            let dim = r.range(-2, 2);
            let want = cpu_ref::cat(soc, &[&x0, &x1, &x2], dim);
            let others = [(st1.clone(), x1.clone()), (x2.clone(), x2.clone())];
            push(
                &mut out,
                "cat",
                soc,
                (&st0, &x0),
                json!({"others": others_json(&others), "dim": dim}),
                expect(want),
                &format!("{fam}-{}", d.name()),
            );
        }
    }
    let cat_dtypes = cpu_ref::supported_dtypes(cpu_ref::Op::Cat, Family::A2).to_vec();
    for _ in 0..300 {
        let d = match r.below(12) {
            0 => DType::ALL[r.below(15) as usize],
            _ => cat_dtypes[r.below(cat_dtypes.len() as u64) as usize],
        };
        let rank = 1 + r.below(4) as usize;
        let base: Vec<usize> = (0..rank).map(|_| 1 + r.below(3) as usize).collect();
        let k = r.below(rank as u64) as usize;
        let count = 1 + r.below(4) as usize;
        let mut members: Vec<(Tensor, Tensor)> = Vec::new();
        for _ in 0..count {
            let mut sh = base.clone();
            sh[k] = r.below(4) as usize;
            let md = if r.below(25) == 0 {
                DType::ALL[r.below(15) as usize]
            } else {
                d
            };
            match r.below(20) {
                0 => {
                    // A dropped 1-D empty member (any dtype).
                    let t = storage(md, &[0], &mut r);
                    members.push((t.clone(), t));
                }
                1 => {
                    // One extent off the rule (or a rank off).
                    let mut bad = sh.clone();
                    if r.below(2) == 0 && rank > 1 {
                        bad[(k + 1) % rank] += 1;
                    } else {
                        bad.push(1);
                    }
                    let t = storage(md, &bad, &mut r);
                    members.push((t.clone(), t));
                }
                2..=6 if rank >= 2 => {
                    // A transposed view.
                    let mut s2 = sh.clone();
                    s2.swap(0, rank - 1);
                    let st = storage(md, &s2, &mut r);
                    let mut strides = st.strides().to_vec();
                    strides.swap(0, rank - 1);
                    let v = st.view(&sh, &strides, 0).unwrap();
                    members.push((st, v));
                }
                7..=9 if !sh.contains(&0) => {
                    // A stride-0 (broadcast) view along dim 0.
                    let mut s1 = sh.clone();
                    s1[0] = 1;
                    let st = storage(md, &s1, &mut r);
                    let mut strides = st.strides().to_vec();
                    strides[0] = 0;
                    let v = st.view(&sh, &strides, 0).unwrap();
                    members.push((st, v));
                }
                _ => {
                    let t = storage(md, &sh, &mut r);
                    members.push((t.clone(), t));
                }
            }
        }
        let dim = match r.below(10) {
            0 => r.extreme(-6, 6),
            _ => k as i64 - if r.below(2) == 0 { rank as i64 } else { 0 },
        };
        let refs: Vec<&Tensor> = members.iter().map(|(_, v)| v).collect();
        let mut params = json!({"others": others_json(&members[1..]), "dim": dim});
        let (want, tag) = if r.below(5) == 0 {
            let od = DType::ALL[r.below(15) as usize];
            params["out_dtype"] = json!(od.name());
            let w = cpu_ref::cat_cast(a2, &refs, dim, od)
                .map(|t| t.unwrap_or_else(|| Tensor::from_bytes(od, &[0], Vec::new()).unwrap()));
            (w, "random-into")
        } else {
            (cpu_ref::cat(a2, &refs, dim), "random")
        };
        let (st0, x0) = &members[0];
        push(&mut out, "cat", a2, (st0, x0), params, expect(want), tag);
    }

    // Stack: every family x dtype (a transposed member, a plain one and
    // the first again), then random lists on A2: ranks 0 to 4 (and 8),
    // views, dims in and out of range, shapes, dtypes and out dtypes.
    for soc in SOCS {
        let fam = format!("{:?}", Family::from_soc(soc).unwrap()).to_lowercase();
        for d in DType::ALL {
            let st0 = storage(d, &[3, 2], &mut r);
            let x0 = st0.view(&[2, 3], &[1, 2], 0).unwrap();
            let x1 = storage(d, &[2, 3], &mut r);
            let dim = r.range(-3, 3);
            let want = cpu_ref::stack(soc, &[&x0, &x1, &x0], dim);
            let others = [(x1.clone(), x1.clone()), (st0.clone(), x0.clone())];
            push(
                &mut out,
                "stack",
                soc,
                (&st0, &x0),
                json!({"others": others_json(&others), "dim": dim}),
                expect(want),
                &format!("{fam}-{}", d.name()),
            );
        }
    }
    let stack_dtypes = cpu_ref::supported_dtypes(cpu_ref::Op::Stack, Family::A2).to_vec();
    for _ in 0..200 {
        let d = stack_dtypes[r.below(stack_dtypes.len() as u64) as usize];
        let (st0, x0) = if r.below(30) == 0 {
            let t = storage(d, &[1; 8], &mut r);
            (t.clone(), t)
        } else {
            input(d, &mut r, 4)
        };
        let count = r.below(4) as usize;
        let mut members: Vec<(Tensor, Tensor)> = vec![(st0, x0.clone())];
        for _ in 0..count {
            let md = if r.below(25) == 0 {
                DType::ALL[r.below(15) as usize]
            } else {
                d
            };
            let mut sh = x0.shape().to_vec();
            if r.below(20) == 0 {
                sh.push(1);
            }
            let t = storage(md, &sh, &mut r);
            members.push((t.clone(), t));
        }
        let rank = x0.rank() as i64;
        let dim = match r.below(10) {
            0 => r.extreme(-10, 10),
            _ => r.range(-rank - 1, rank + 1),
        };
        let refs: Vec<&Tensor> = members.iter().map(|(_, v)| v).collect();
        let mut params = json!({"others": others_json(&members[1..]), "dim": dim});
        let (want, tag) = if r.below(5) == 0 {
            let od = DType::ALL[r.below(15) as usize];
            params["out_dtype"] = json!(od.name());
            (cpu_ref::stack_cast(a2, &refs, dim, od), "random-into")
        } else {
            (cpu_ref::stack(a2, &refs, dim), "random")
        };
        let (st0, x0) = &members[0];
        push(&mut out, "stack", a2, (st0, x0), params, expect(want), tag);
    }

    r = Rng(fork_r);
    n.set(fork_n);

    // Fills (ops.md §13): every family x dtype, with values of each kind
    // (some do not cast: invalid), on random views; then stride-0 and
    // overlapping views and random calls on A2.
    let values = [
        Scalar::Int(-7),
        Scalar::Int(300),
        Scalar::Bool(true),
        Scalar::Float(0.1),
        Scalar::Float(-1e300),
        Scalar::Complex(1.5, -0.25),
    ];
    for soc in SOCS {
        let fam = format!("{:?}", Family::from_soc(soc).unwrap()).to_lowercase();
        for d in DType::ALL {
            let tag = format!("{fam}-{}", d.name());
            for _ in 0..2 {
                let (st, x) = input(d, &mut r, 3);
                let v = values[r.below(values.len() as u64) as usize];
                push(
                    &mut out,
                    "fill_scalar",
                    soc,
                    (&st, &x),
                    json!({"value": alpha_json(v)}),
                    expect(cpu_ref::fill_scalar(soc, &x, v)),
                    &tag,
                );
            }
            let (st, x) = input(d, &mut r, 3);
            push(
                &mut out,
                "zero",
                soc,
                (&st, &x),
                json!({}),
                expect(cpu_ref::zero(soc, &x)),
                &tag,
            );
        }
    }
    for _ in 0..100 {
        let d = DType::ALL[r.below(15) as usize];
        let st = storage(d, &[6], &mut r);
        // A broadcast row (stride 0: filled once), a window (refused) or
        // a plain slice.
        let (x, tag) = match r.below(3) {
            0 => (
                st.view(&[2, 3], &[0, 1], r.below(4) as usize).unwrap(),
                "random-stride0",
            ),
            1 => (st.view(&[2, 3], &[2, 1], 0).unwrap(), "random-window"),
            _ => (
                st.view(&[3], &[2], r.below(2) as usize).unwrap(),
                "random-strided",
            ),
        };
        let v = match r.below(4) {
            0 => Scalar::Int(r.extreme(-3, 3)),
            1 => Scalar::Float(r.range(-8, 8) as f64 / 4.0),
            2 => Scalar::Bool(r.below(2) == 1),
            _ => Scalar::Int(r.range(-3, 3)),
        };
        if r.below(4) == 0 {
            push(
                &mut out,
                "zero",
                a2,
                (&st, &x),
                json!({}),
                expect(cpu_ref::zero(a2, &x)),
                tag,
            );
        } else {
            push(
                &mut out,
                "fill_scalar",
                a2,
                (&st, &x),
                json!({"value": alpha_json(v)}),
                expect(cpu_ref::fill_scalar(a2, &x, v)),
                tag,
            );
        }
    }

    // Cast (ops.md §14): every family x dtype pair on random views (random
    // bytes: NaN payloads, infinities, out-of-range values).
    for soc in SOCS {
        let fam = format!("{:?}", Family::from_soc(soc).unwrap()).to_lowercase();
        for dx in DType::ALL {
            for dy in DType::ALL {
                let (st, x) = input(dx, &mut r, 2);
                let tag = format!("{fam}-{}-{}", dx.name(), dy.name());
                push(
                    &mut out,
                    "cast",
                    soc,
                    (&st, &x),
                    json!({"dtype": dy.name()}),
                    expect(cpu_ref::cast(soc, &x, dy)),
                    &tag,
                );
            }
        }
    }

    tri_and_split(&mut out, &push);

    // Appended last, so the random stream of every case above is unchanged.
    pad_cases(&mut out, &mut r, &push);
    view_cases(&mut out);
    embedding_cases(&mut out, &push);
    slice_cases(&mut out, &push);
    slice_v3_cases(&mut out, &push);
    as_strided_aclnn_cases(&mut out, &push);
    slice_assign_cases(&mut out, &push);
    gather_cases(&mut out, &push);
    index_cases(&mut out, &push);
    index_mask_cases(&mut out, &push);
    view_copy_cases(&mut out, &push);

    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases/generated.jsonl");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    writeln!(
        f,
        "// Generated by `cargo run -p npu-ops-cli --example gen_cases`; expected outputs from cpu-ref."
    )
    .unwrap();
    for c in &out {
        writeln!(f, "{}", serde_json::to_string(c).unwrap()).unwrap();
    }
    eprintln!("{} cases written to {}", out.len(), path.display());
    name_the_seeds_soc();
}

/// The slices-and-views family (issue 21: Permute, ops.md §18; Flip,
/// §19; Roll, §20; Expand, §21; Repeat, §22), appended
/// after every earlier block from a random stream of its own, so neither
/// the earlier lines nor other families' appended blocks move.
fn view_cases(out: &mut Vec<Value>) {
    let mut r = Rng(0x5EED_F1EE);
    let mut n = 0usize;
    let mut push = |out: &mut Vec<Value>,
                    op: &str,
                    soc: &str,
                    x: (&Tensor, &Tensor),
                    params: Value,
                    e: Value,
                    tag: &str| {
        n += 1;
        out.push(json!({"id": format!("{op}/{tag}-v{n}"), "op": op, "soc": soc, "input": input_json(x.0, x.1), "params": params, "expect": e}));
    };
    // A random permutation of 0..rank, some entries spelt negative.
    let perm = |r: &mut Rng, rank: usize| -> Vec<i64> {
        let mut p: Vec<i64> = (0..rank as i64).collect();
        for i in (1..rank).rev() {
            p.swap(i, r.below(i as u64 + 1) as usize);
        }
        for v in p.iter_mut() {
            if r.below(3) == 0 {
                *v -= rank as i64;
            }
        }
        p
    };

    // Permute: every family x dtype on random views (ranks 0 to 4) and
    // permutations; then random calls on A2 with bad dims (wrong length,
    // out of range, extremes, repeats).
    for soc in SOCS {
        let fam = format!("{:?}", Family::from_soc(soc).unwrap()).to_lowercase();
        for d in DType::ALL {
            for _ in 0..2 {
                let (st, x) = input(d, &mut r, 4);
                let dims = perm(&mut r, x.rank());
                push(
                    out,
                    "permute",
                    soc,
                    (&st, &x),
                    json!({ "dims": dims }),
                    expect(cpu_ref::permute(soc, &x, &dims)),
                    &format!("{fam}-{}", d.name()),
                );
            }
        }
    }
    let a2 = "Ascend910B3";
    for _ in 0..60 {
        let d = DType::ALL[r.below(DType::ALL.len() as u64) as usize];
        let (st, x) = input(d, &mut r, 4);
        let rank = x.rank();
        let mut dims = perm(&mut r, rank);
        let tag = match r.below(5) {
            0 if rank > 0 => {
                dims.pop();
                "short"
            }
            1 => {
                dims.push(r.extreme(-6, 6));
                "long"
            }
            2 if rank > 0 => {
                let k = r.below(rank as u64) as usize;
                dims[k] = r.extreme(-10, 10);
                "entry"
            }
            3 if rank > 1 => {
                let k = 1 + r.below(rank as u64 - 1) as usize;
                dims[k] = if r.below(2) == 0 {
                    dims[0]
                } else {
                    dims[0]
                        + if dims[0] < 0 {
                            rank as i64
                        } else {
                            -(rank as i64)
                        }
                };
                "repeat"
            }
            _ => "random",
        };
        push(
            out,
            "permute",
            a2,
            (&st, &x),
            json!({ "dims": dims }),
            expect(cpu_ref::permute(a2, &x, &dims)),
            tag,
        );
    }

    // Flip: every family x dtype on random views (ranks 0 to 4) and random
    // subsets of dims (some spelt negative); then random calls on A2 with
    // bad dims (out of range, extremes, repeats).
    let subset = |r: &mut Rng, rank: usize| -> Vec<i64> {
        let mut d: Vec<i64> = (0..rank.max(1) as i64)
            .filter(|_| r.below(2) == 0)
            .collect();
        for i in (1..d.len()).rev() {
            d.swap(i, r.below(i as u64 + 1) as usize);
        }
        for v in d.iter_mut() {
            if r.below(3) == 0 {
                *v -= rank.max(1) as i64;
            }
        }
        d
    };
    for soc in SOCS {
        let fam = format!("{:?}", Family::from_soc(soc).unwrap()).to_lowercase();
        for d in DType::ALL {
            for _ in 0..2 {
                let (st, x) = input(d, &mut r, 4);
                let dims = subset(&mut r, x.rank());
                push(
                    out,
                    "flip",
                    soc,
                    (&st, &x),
                    json!({ "dims": dims }),
                    expect(cpu_ref::flip(soc, &x, &dims)),
                    &format!("{fam}-{}", d.name()),
                );
            }
        }
    }
    for _ in 0..60 {
        let d = DType::ALL[r.below(DType::ALL.len() as u64) as usize];
        let (st, x) = input(d, &mut r, 4);
        let mut dims = subset(&mut r, x.rank());
        let tag = match r.below(4) {
            0 => {
                dims.push(r.extreme(-6, 6));
                "entry"
            }
            1 if !dims.is_empty() => {
                let v = dims[0];
                dims.push(if r.below(2) == 0 {
                    v
                } else if v < 0 {
                    v + x.rank().max(1) as i64
                } else {
                    v - x.rank().max(1) as i64
                });
                "repeat"
            }
            _ => "random",
        };
        push(
            out,
            "flip",
            a2,
            (&st, &x),
            json!({ "dims": dims }),
            expect(cpu_ref::flip(a2, &x, &dims)),
            tag,
        );
    }

    // Roll: every family x dtype on random views (ranks 0 to 4) with
    // random (shift, dim) pairs (repeats allowed) or a flat roll; then
    // random calls on A2 with extreme shifts and bad lengths or dims.
    let pairs = |r: &mut Rng, rank: usize| -> (Vec<i64>, Vec<i64>) {
        if rank == 0 || r.below(4) == 0 {
            return (vec![r.range(-9, 9)], vec![]);
        }
        let n = 1 + r.below(3) as usize;
        let dims = (0..n)
            .map(|_| r.range(-(rank as i64), rank as i64))
            .collect();
        let shifts = (0..n).map(|_| r.range(-9, 9)).collect();
        (shifts, dims)
    };
    for soc in SOCS {
        let fam = format!("{:?}", Family::from_soc(soc).unwrap()).to_lowercase();
        for d in DType::ALL {
            for _ in 0..2 {
                let (st, x) = input(d, &mut r, 4);
                let (shifts, dims) = pairs(&mut r, x.rank());
                push(
                    out,
                    "roll",
                    soc,
                    (&st, &x),
                    json!({ "shifts": shifts, "dims": dims }),
                    expect(cpu_ref::roll(soc, &x, &shifts, &dims)),
                    &format!("{fam}-{}", d.name()),
                );
            }
        }
    }
    for _ in 0..60 {
        let d = DType::ALL[r.below(DType::ALL.len() as u64) as usize];
        let (st, x) = input(d, &mut r, 4);
        let (mut shifts, mut dims) = pairs(&mut r, x.rank());
        let tag = match r.below(5) {
            0 => {
                shifts[0] = r.extreme(-20, 20);
                "extreme"
            }
            1 => {
                shifts.push(1);
                "length"
            }
            2 => {
                dims.push(r.extreme(-6, 6));
                shifts.push(r.range(-3, 3));
                "dim"
            }
            _ => "random",
        };
        push(
            out,
            "roll",
            a2,
            (&st, &x),
            json!({ "shifts": shifts, "dims": dims }),
            expect(cpu_ref::roll(a2, &x, &shifts, &dims)),
            tag,
        );
    }

    // Expand: every family x dtype on random views (ranks 0 to 3, some
    // extents 1) broadcast to a random valid size (new leading dims,
    // extent-1 dims grown or kept); then random calls on A2 with bad sizes
    // (short, negative, extreme, mismatched).
    let sizes = |r: &mut Rng, shape: &[usize]| -> Vec<i64> {
        let mut v: Vec<i64> = (0..r.below(3)).map(|_| r.range(0, 3)).collect();
        for &n in shape {
            v.push(if n == 1 { r.range(0, 4) } else { n as i64 });
        }
        v
    };
    for soc in SOCS {
        let fam = format!("{:?}", Family::from_soc(soc).unwrap()).to_lowercase();
        for d in DType::ALL {
            for _ in 0..2 {
                let (st, x) = input(d, &mut r, 3);
                let size = sizes(&mut r, x.shape());
                push(
                    out,
                    "expand",
                    soc,
                    (&st, &x),
                    json!({ "size": size }),
                    expect(cpu_ref::expand(soc, &x, &size)),
                    &format!("{fam}-{}", d.name()),
                );
            }
        }
    }
    for _ in 0..60 {
        let d = DType::ALL[r.below(DType::ALL.len() as u64) as usize];
        let (st, x) = input(d, &mut r, 3);
        let mut size = sizes(&mut r, x.shape());
        let tag = match r.below(5) {
            0 if !size.is_empty() => {
                size.remove(0);
                "short"
            }
            1 if !size.is_empty() => {
                let k = r.below(size.len() as u64) as usize;
                size[k] = r.extreme(-3, 5);
                "entry"
            }
            2 => {
                size.insert(0, r.extreme(-2, 3));
                "lead"
            }
            _ => "random",
        };
        push(
            out,
            "expand",
            a2,
            (&st, &x),
            json!({ "size": size }),
            expect(cpu_ref::expand(a2, &x, &size)),
            tag,
        );
    }

    // Repeat: every family x dtype on random views (ranks 0 to 3) tiled by
    // random repeats (0 to 2, some leading dims); then random calls on A2
    // with bad repeats (short, negative, extreme).
    let reps_for = |r: &mut Rng, rank: usize| -> Vec<i64> {
        (0..rank + r.below(2) as usize)
            .map(|_| r.range(0, 3))
            .collect()
    };
    for soc in SOCS {
        let fam = format!("{:?}", Family::from_soc(soc).unwrap()).to_lowercase();
        for d in DType::ALL {
            for _ in 0..2 {
                let (st, x) = input(d, &mut r, 3);
                let reps = reps_for(&mut r, x.rank());
                push(
                    out,
                    "repeat",
                    soc,
                    (&st, &x),
                    json!({ "repeats": reps }),
                    expect(cpu_ref::repeat(soc, &x, &reps)),
                    &format!("{fam}-{}", d.name()),
                );
            }
        }
    }
    for _ in 0..60 {
        let d = DType::ALL[r.below(DType::ALL.len() as u64) as usize];
        let (st, x) = input(d, &mut r, 3);
        let mut reps = reps_for(&mut r, x.rank());
        let tag = match r.below(4) {
            0 if !reps.is_empty() => {
                reps.remove(0);
                "short"
            }
            1 if !reps.is_empty() => {
                let k = r.below(reps.len() as u64) as usize;
                reps[k] = if r.below(2) == 0 { -1 } else { i64::MIN };
                "negative"
            }
            _ => "random",
        };
        push(
            out,
            "repeat",
            a2,
            (&st, &x),
            json!({ "repeats": reps }),
            expect(cpu_ref::repeat(a2, &x, &reps)),
            tag,
        );
    }
}

/// Tril and Triu (ops.md §15), then SplitTensor and SplitWithSize
/// (§12): appended after every other block, with a random stream of their
/// own, so the earlier cases keep their lines.
fn tri_and_split<F>(out: &mut Vec<Value>, push: &F)
where
    F: Fn(&mut Vec<Value>, &str, &str, (&Tensor, &Tensor), Value, Value, &str),
{
    let mut r = Rng(0x7121_5EED_0015);
    // Every family x dtype x operator, new-tensor and in-place forms, on
    // random views of rank 0 to 4 (below 2: invalid) and diagonals from
    // the extremes to a few either side.
    for soc in SOCS {
        let fam = format!("{:?}", Family::from_soc(soc).unwrap()).to_lowercase();
        for d in DType::ALL {
            for op in ["tril", "triu"] {
                for inplace in [false, true] {
                    let (st, x) = input(d, &mut r, 4);
                    let diagonal = r.extreme(-4, 5);
                    let want = if op == "tril" {
                        cpu_ref::tril(soc, &x, diagonal)
                    } else {
                        cpu_ref::triu(soc, &x, diagonal)
                    };
                    let mut params = json!({"diagonal": diagonal});
                    let tag = if inplace {
                        params["inplace"] = json!(true);
                        format!("{fam}-{}-inplace", d.name())
                    } else {
                        format!("{fam}-{}", d.name())
                    };
                    push(out, op, soc, (&st, &x), params, expect(want), &tag);
                }
            }
        }
    }
    // Batches of matrices on A2: wide, tall, broadcast (stride 0) inputs.
    let a2 = "Ascend910B3";
    for _ in 0..60 {
        let d = DType::ALL[r.below(15) as usize];
        let op = if r.below(2) == 0 { "tril" } else { "triu" };
        let dims: Vec<usize> = (0..2 + r.below(3) as usize)
            .map(|_| 1 + r.below(6) as usize)
            .collect();
        let st = storage(d, &dims, &mut r);
        let (x, tag, inplace) = if r.below(4) == 0 {
            // The first matrix broadcast over a new leading dim of 3.
            let mut shape = vec![3];
            shape.extend_from_slice(&dims[dims.len() - 2..]);
            let mut strides = vec![0];
            strides.extend_from_slice(&st.strides()[dims.len() - 2..]);
            (
                st.view(&shape, &strides, 0).unwrap(),
                "random-stride0",
                false,
            )
        } else {
            (st.clone(), "random", r.below(2) == 0)
        };
        let diagonal = r.range(-7, 8);
        let want = if op == "tril" {
            cpu_ref::tril(a2, &x, diagonal)
        } else {
            cpu_ref::triu(a2, &x, diagonal)
        };
        let mut params = json!({"diagonal": diagonal});
        if inplace {
            params["inplace"] = json!(true);
        }
        push(out, op, a2, (&st, &x), params, expect(want), tag);
    }

    // SplitTensor and SplitWithSize: every family x dtype on random views
    // of rank 0 to 3 (0: invalid), sections from 0 to past the extent and
    // sizes that sum (or not, or hold a negative), some into `_into`.
    let expect_list = |r: Result<Vec<Tensor>, cpu_ref::RefError>| match r {
        Ok(ts) => json!({"tensors": ts.iter().map(tensor_json).collect::<Vec<_>>()}),
        Err(e) => json!({"error": e.kind()}),
    };
    for soc in SOCS {
        let fam = format!("{:?}", Family::from_soc(soc).unwrap()).to_lowercase();
        for d in DType::ALL {
            let tag = format!("{fam}-{}", d.name());
            let (st, x) = input(d, &mut r, 3);
            let dim = r.range(-3, 3);
            let n = if x.rank() == 0 {
                0
            } else {
                x.shape()[dim.rem_euclid(x.rank() as i64) as usize]
            };
            let sections = match r.below(6) {
                0 => 0,
                1 => n as u64 + 1 + r.below(3),
                _ => 1 + r.below(3),
            };
            let mut params = json!({"split_sections": sections, "dim": dim});
            if r.below(3) == 0 {
                params["into"] = json!(true);
            }
            let want = cpu_ref::split_tensor(soc, &x, sections, dim);
            push(
                out,
                "split_tensor",
                soc,
                (&st, &x),
                params,
                expect_list(want),
                &tag,
            );
            let (st, x) = input(d, &mut r, 3);
            let dim = r.range(-3, 3);
            let n = if x.rank() == 0 {
                0
            } else {
                x.shape()[dim.rem_euclid(x.rank() as i64) as usize] as i64
            };
            let mut sizes: Vec<i64> = Vec::new();
            let mut left = n;
            while left > 0 && sizes.len() < 4 {
                let k = r.range(0, left + 1);
                sizes.push(k);
                left -= k;
            }
            sizes.push(left);
            match r.below(8) {
                0 => sizes.push(1),
                1 => sizes[0] -= 1,
                2 => sizes = vec![-1, n + 1],
                _ => {}
            }
            let mut params = json!({"split_size": sizes, "dim": dim});
            if r.below(3) == 0 {
                params["into"] = json!(true);
            }
            let want = cpu_ref::split_with_size(soc, &x, &sizes, dim);
            push(
                out,
                "split_with_size",
                soc,
                (&st, &x),
                params,
                expect_list(want),
                &tag,
            );
        }
    }
    // More pieces on A2: up to 40 (the 32-piece limit of DOUBLE and the
    // complex types), broadcast (stride 0) inputs.
    for _ in 0..40 {
        let d = DType::ALL[r.below(15) as usize];
        let n = 1 + r.below(40) as usize;
        let st = storage(d, &[n, 2], &mut r);
        let (x, tag) = if r.below(3) == 0 {
            (st.view(&[n, 2], &[1, 0], 0).unwrap(), "random-stride0")
        } else {
            (st.clone(), "random")
        };
        let sizes = vec![1i64; n];
        let want = cpu_ref::split_with_size(a2, &x, &sizes, 0);
        push(
            out,
            "split_with_size",
            a2,
            (&st, &x),
            json!({"split_size": sizes, "dim": 0}),
            expect_list(want),
            tag,
        );
    }
}

/// Embedding (ops.md §23): appended last, with a random stream of its own.
fn embedding_cases<F>(out: &mut Vec<Value>, push: &F)
where
    F: Fn(&mut Vec<Value>, &str, &str, (&Tensor, &Tensor), Value, Value, &str),
{
    let mut r = Rng(0xE3BE_DD16_0023);
    // Every family x dtype: a weight view of rank 1 to 3 (2 valid), indices
    // of rank 0 to 2, int32 or int64, now and then out of range.
    for soc in SOCS {
        let fam = format!("{:?}", Family::from_soc(soc).unwrap()).to_lowercase();
        for d in DType::ALL {
            let (st, w) = loop {
                let (st, w) = input(d, &mut r, 3);
                if w.rank() >= 1 {
                    break (st, w);
                }
            };
            let rows = w.shape()[0] as i64;
            let k = r.below(3) as usize;
            let shape: Vec<usize> = (0..k).map(|_| r.below(3) as usize + 1).collect();
            let n: usize = shape.iter().product();
            let vals: Vec<i64> = (0..n)
                .map(|_| {
                    if r.below(10) == 0 {
                        rows + r.below(2) as i64 * -(rows + 1)
                    } else {
                        r.range(0, rows.max(1))
                    }
                })
                .collect();
            let idx = if r.below(2) == 0 {
                Tensor::from_slice(&shape, &vals).unwrap()
            } else {
                let v: Vec<i32> = vals.iter().map(|&v| v as i32).collect();
                Tensor::from_slice(&shape, &v).unwrap()
            };
            let tag = format!("{fam}-{}", d.name());
            push(
                out,
                "embedding",
                soc,
                (&st, &w),
                json!({"indices": tensor_json(&idx)}),
                expect(cpu_ref::embedding(soc, &w, &idx)),
                &tag,
            );
        }
    }
}

/// The gathers (ops.md §24 on): appended last, with a random stream of
/// their own.
fn gather_cases<F>(out: &mut Vec<Value>, push: &F)
where
    F: Fn(&mut Vec<Value>, &str, &str, (&Tensor, &Tensor), Value, Value, &str),
{
    let mut r = Rng(0x6A7E_0024);
    // GatherV2: every family x dtype, a self view of rank 0 to 3, a dim
    // (now and then out of range), an index of rank 0 to 3, int32 or
    // int64, now and then out of range.
    for soc in SOCS {
        let fam = format!("{:?}", Family::from_soc(soc).unwrap()).to_lowercase();
        for d in DType::ALL {
            for _ in 0..2 {
                let (st, x) = input(d, &mut r, 3);
                let rank = x.rank().max(1) as i64;
                let dim = if r.below(12) == 0 {
                    rank + r.below(2) as i64 * -(2 * rank + 1)
                } else {
                    r.range(-rank, rank)
                };
                let n = if x.rank() == 0 {
                    1
                } else {
                    x.shape()[dim.rem_euclid(rank) as usize] as i64
                };
                let k = if x.rank() == 0 {
                    r.below(2) as usize
                } else {
                    r.below(4) as usize
                };
                let shape: Vec<usize> = (0..k)
                    .map(|_| {
                        if x.rank() == 0 {
                            1
                        } else {
                            r.below(3) as usize + 1
                        }
                    })
                    .collect();
                let cnt: usize = shape.iter().product();
                let vals: Vec<i64> = (0..cnt)
                    .map(|_| {
                        if r.below(12) == 0 {
                            n + r.below(2) as i64 * -(n + 1)
                        } else {
                            r.range(0, n.max(1))
                        }
                    })
                    .collect();
                let idx = if r.below(2) == 0 {
                    Tensor::from_slice(&shape, &vals).unwrap()
                } else {
                    let v: Vec<i32> = vals.iter().map(|&v| v as i32).collect();
                    Tensor::from_slice(&shape, &v).unwrap()
                };
                let tag = format!("{fam}-{}", d.name());
                push(
                    out,
                    "gather_v2",
                    soc,
                    (&st, &x),
                    json!({"dim": dim, "index": tensor_json(&idx)}),
                    expect(cpu_ref::gather_v2(soc, &x, dim, &idx)),
                    &tag,
                );
            }
        }
    }
    // Gather: every family x dtype, a self view of rank 0 to 3, a dim (now
    // and then out of range), an index of self's rank (now and then
    // another) whose extents are mostly at most self's, values now and
    // then out of range.
    for soc in SOCS {
        let fam = format!("{:?}", Family::from_soc(soc).unwrap()).to_lowercase();
        for d in DType::ALL {
            for _ in 0..2 {
                let (st, x) = input(d, &mut r, 3);
                let rank = x.rank().max(1) as i64;
                let dim = if r.below(12) == 0 {
                    rank + r.below(2) as i64 * -(2 * rank + 1)
                } else {
                    r.range(-rank, rank)
                };
                let xs: Vec<usize> = if x.rank() == 0 {
                    vec![1]
                } else {
                    x.shape().to_vec()
                };
                let mut shape: Vec<usize> = xs
                    .iter()
                    .map(|&e| {
                        if r.below(10) == 0 {
                            e + 1
                        } else {
                            r.below(e as u64 + 1) as usize
                        }
                    })
                    .collect();
                if r.below(12) == 0 {
                    shape.push(1);
                }
                if x.rank() == 0 && r.below(2) == 0 {
                    shape.clear();
                }
                let n = xs[dim.rem_euclid(rank) as usize] as i64;
                let cnt: usize = shape.iter().product();
                let vals: Vec<i64> = (0..cnt)
                    .map(|_| {
                        if r.below(12) == 0 {
                            n + r.below(2) as i64 * -(n + 1)
                        } else {
                            r.range(0, n.max(1))
                        }
                    })
                    .collect();
                let idx = if r.below(2) == 0 {
                    Tensor::from_slice(&shape, &vals).unwrap()
                } else {
                    let v: Vec<i32> = vals.iter().map(|&v| v as i32).collect();
                    Tensor::from_slice(&shape, &v).unwrap()
                };
                let tag = format!("{fam}-{}", d.name());
                push(
                    out,
                    "gather",
                    soc,
                    (&st, &x),
                    json!({"dim": dim, "index": tensor_json(&idx)}),
                    expect(cpu_ref::gather(soc, &x, dim, &idx)),
                    &tag,
                );
            }
        }
    }
    // Take: every family x dtype, a self view of rank 0 to 3, an index of
    // rank 0 to 3, int32 or int64, values now and then out of range.
    for soc in SOCS {
        let fam = format!("{:?}", Family::from_soc(soc).unwrap()).to_lowercase();
        for d in DType::ALL {
            for _ in 0..2 {
                let (st, x) = input(d, &mut r, 3);
                let n = x.numel() as i64;
                let k = r.below(4) as usize;
                let shape: Vec<usize> = (0..k).map(|_| r.below(3) as usize + 1).collect();
                let cnt: usize = shape.iter().product();
                let vals: Vec<i64> = (0..cnt)
                    .map(|_| {
                        if r.below(12) == 0 {
                            n + r.below(2) as i64 * -(n + 1)
                        } else {
                            r.range(0, n.max(1))
                        }
                    })
                    .collect();
                let idx = if r.below(2) == 0 {
                    Tensor::from_slice(&shape, &vals).unwrap()
                } else {
                    let v: Vec<i32> = vals.iter().map(|&v| v as i32).collect();
                    Tensor::from_slice(&shape, &v).unwrap()
                };
                let tag = format!("{fam}-{}", d.name());
                push(
                    out,
                    "take",
                    soc,
                    (&st, &x),
                    json!({"index": tensor_json(&idx)}),
                    expect(cpu_ref::take(soc, &x, &idx)),
                    &tag,
                );
            }
        }
    }
    // IndexCopy: every family x dtype, a self view of rank 0 to 3, a dim
    // (now and then out of range), an index of 0 to 3 values (now and then
    // out of range), a source of the matching shape (now and then not),
    // the out-of-place or in-place form.
    for soc in SOCS {
        let fam = format!("{:?}", Family::from_soc(soc).unwrap()).to_lowercase();
        for d in DType::ALL {
            for _ in 0..2 {
                let (st, x) = input(d, &mut r, 3);
                let rank = x.rank().max(1) as i64;
                let dim = if r.below(12) == 0 {
                    rank + r.below(2) as i64 * -(2 * rank + 1)
                } else {
                    r.range(-rank, rank)
                };
                let xs: Vec<usize> = if x.rank() == 0 {
                    vec![1]
                } else {
                    x.shape().to_vec()
                };
                let dd = dim.rem_euclid(rank) as usize;
                let n = xs[dd] as i64;
                let k = r.below(4) as usize;
                let vals: Vec<i64> = (0..k)
                    .map(|_| {
                        if r.below(12) == 0 {
                            n + r.below(2) as i64 * -(n + 1)
                        } else {
                            r.range(0, n.max(1))
                        }
                    })
                    .collect();
                let idx = if r.below(2) == 0 {
                    Tensor::from_slice(&[k], &vals).unwrap()
                } else {
                    let v: Vec<i32> = vals.iter().map(|&v| v as i32).collect();
                    Tensor::from_slice(&[k], &v).unwrap()
                };
                let mut ss = xs.clone();
                ss[dd] = k;
                if r.below(12) == 0 {
                    ss[0] += 1;
                }
                let src = storage(d, &ss, &mut r);
                let inplace = r.below(2) == 0;
                let tag = format!("{fam}-{}", d.name());
                push(
                    out,
                    "index_copy",
                    soc,
                    (&st, &x),
                    json!({"dim": dim, "index": tensor_json(&idx), "source": tensor_json(&src), "inplace": inplace}),
                    expect(cpu_ref::index_copy(soc, &x, dim, &idx, &src)),
                    &tag,
                );
            }
        }
    }
    // GatherNd: every family x dtype, a self view of rank 1 to 3, tuples
    // of K = 1..rank coordinates (now and then K out of range), leading
    // index dims 0 to 2, coordinates now and then negative (with or
    // without the flag) or out of range.
    for soc in SOCS {
        let fam = format!("{:?}", Family::from_soc(soc).unwrap()).to_lowercase();
        for d in DType::ALL {
            for _ in 0..2 {
                let (st, x) = loop {
                    let (st, x) = input(d, &mut r, 3);
                    if x.rank() >= 1 {
                        break (st, x);
                    }
                };
                let rank = x.rank();
                let k = if r.below(12) == 0 {
                    rank + 1
                } else {
                    r.range(1, rank as i64 + 1) as usize
                };
                let lead = r.below(3) as usize;
                let mut shape: Vec<usize> = (0..lead).map(|_| r.below(3) as usize + 1).collect();
                shape.push(k);
                let cnt: usize = shape.iter().product();
                let negative = r.below(2) == 0;
                let vals: Vec<i64> = (0..cnt)
                    .map(|p| {
                        let n = x.shape().get(p % k).copied().unwrap_or(1) as i64;
                        match r.below(12) {
                            0 => n + r.below(2) as i64 * -(2 * n + 1),
                            1 | 2 => r.range(-n, 0),
                            _ => r.range(0, n.max(1)),
                        }
                    })
                    .collect();
                let idx = if r.below(2) == 0 {
                    Tensor::from_slice(&shape, &vals).unwrap()
                } else {
                    let v: Vec<i32> = vals.iter().map(|&v| v as i32).collect();
                    Tensor::from_slice(&shape, &v).unwrap()
                };
                let tag = format!("{fam}-{}", d.name());
                push(
                    out,
                    "gather_nd",
                    soc,
                    (&st, &x),
                    json!({"indices": tensor_json(&idx), "negative": negative}),
                    expect(cpu_ref::gather_nd(soc, &x, &idx, negative)),
                    &tag,
                );
            }
        }
    }
    // MaskedSelect: every family x dtype, a self view of rank 0 to 3, a
    // bool or uint8 mask of a suffix of its shape (some extents 1, now and
    // then one that does not broadcast).
    for soc in SOCS {
        let fam = format!("{:?}", Family::from_soc(soc).unwrap()).to_lowercase();
        for d in DType::ALL {
            for _ in 0..2 {
                let (st, x) = input(d, &mut r, 3);
                let keep = r.below(x.rank() as u64 + 1) as usize;
                let mut ms: Vec<usize> = x.shape()[x.rank() - keep..]
                    .iter()
                    .map(|&e| if r.below(3) == 0 { 1 } else { e })
                    .collect();
                if !ms.is_empty() && r.below(12) == 0 {
                    ms[0] += 1;
                }
                let n: usize = ms.iter().product();
                let bytes: Vec<u8> = (0..n).map(|_| (r.below(2)) as u8).collect();
                let mdt = if r.below(2) == 0 {
                    DType::Bool
                } else {
                    DType::UInt8
                };
                let mask = Tensor::from_bytes(mdt, &ms, bytes).unwrap();
                let tag = format!("{fam}-{}", d.name());
                push(
                    out,
                    "masked_select",
                    soc,
                    (&st, &x),
                    json!({"mask": tensor_json(&mask)}),
                    expect(cpu_ref::masked_select(soc, &x, &mask)),
                    &tag,
                );
            }
        }
    }
}

/// Index (ops.md §30): appended after the gathers, with a random stream of
/// its own. Every family x dtype, a self view of rank 0 to 3, 0 to rank + 1
/// members (a 0-D self: one), each empty (its dim kept whole) or int32 /
/// int64 of a shape that mostly broadcasts with the others, values mostly
/// in range (negative ones too).
fn index_cases<F>(out: &mut Vec<Value>, push: &F)
where
    F: Fn(&mut Vec<Value>, &str, &str, (&Tensor, &Tensor), Value, Value, &str),
{
    let mut r = Rng(0x1DE7_0030);
    for soc in SOCS {
        let fam = format!("{:?}", Family::from_soc(soc).unwrap()).to_lowercase();
        for d in DType::ALL {
            for _ in 0..3 {
                let (st, x) = input(d, &mut r, 3);
                let rank = x.rank().max(1);
                let n = if x.rank() == 0 {
                    1
                } else if r.below(16) == 0 {
                    rank + 1
                } else {
                    r.range(1, rank as i64 + 1) as usize
                };
                let shapes: [&[usize]; 5] = [&[2], &[1], &[], &[2, 1], &[3]];
                let mut members = Vec::new();
                for j in 0..n {
                    let ext = if x.rank() == 0 {
                        1
                    } else {
                        x.shape().get(j).copied().unwrap_or(1)
                    } as i64;
                    let ms: Vec<usize> = if r.below(5) == 0 {
                        vec![0]
                    } else {
                        let kinds = if r.below(10) == 0 { 5 } else { 4 };
                        shapes[r.below(kinds) as usize].to_vec()
                    };
                    let cnt: usize = ms.iter().product();
                    let vals: Vec<i64> = (0..cnt)
                        .map(|_| match r.below(16) {
                            0 => ext + r.below(2) as i64 * -(2 * ext + 1),
                            1..=3 => r.range(-ext.max(1), 0),
                            _ => r.range(0, ext.max(1)),
                        })
                        .collect();
                    let t = if r.below(2) == 0 {
                        Tensor::from_slice(&ms, &vals).unwrap()
                    } else {
                        let v: Vec<i32> = vals.iter().map(|&v| v as i32).collect();
                        Tensor::from_slice(&ms, &v).unwrap()
                    };
                    members.push(t);
                }
                let refs: Vec<&Tensor> = members.iter().collect();
                let tag = format!("{fam}-{}", d.name());
                push(
                    out,
                    "index",
                    soc,
                    (&st, &x),
                    json!({"indices": members.iter().map(tensor_json).collect::<Vec<_>>()}),
                    expect(cpu_ref::index(soc, &x, &refs)),
                    &tag,
                );
            }
        }
    }
}

/// Index with bool masks (ops.md §30): appended after the integer block,
/// with a random stream of its own. Every family x dtype, a self view of
/// rank 1 to 3, an optional empty member, a mask of the dims it covers
/// (now and then of a wrong shape), now and then an integer member after
/// it.
fn index_mask_cases<F>(out: &mut Vec<Value>, push: &F)
where
    F: Fn(&mut Vec<Value>, &str, &str, (&Tensor, &Tensor), Value, Value, &str),
{
    let mut r = Rng(0x1DE7_B001);
    for soc in SOCS {
        let fam = format!("{:?}", Family::from_soc(soc).unwrap()).to_lowercase();
        for d in DType::ALL {
            let (st, x) = loop {
                let (st, x) = input(d, &mut r, 3);
                if x.rank() >= 1 {
                    break (st, x);
                }
            };
            let mut members = Vec::new();
            let start = if x.rank() >= 2 && r.below(3) == 0 {
                members.push(Tensor::from_slice::<i64>(&[0], &[]).unwrap());
                1
            } else {
                0
            };
            let k = r.range(1, (x.rank() - start) as i64 + 1) as usize;
            let mut ms = x.shape()[start..start + k].to_vec();
            if r.below(10) == 0 {
                ms[0] += 1;
            }
            let n: usize = ms.iter().product();
            let bytes: Vec<u8> = (0..n).map(|_| (r.below(3) != 0) as u8).collect();
            members.push(Tensor::from_bytes(DType::Bool, &ms, bytes).unwrap());
            if start + k < x.rank() && r.below(3) == 0 {
                let ext = x.shape()[start + k] as i64;
                members.push(
                    Tensor::from_slice(&[1], &[r.range(-ext.max(1), ext.max(1) - 1)]).unwrap(),
                );
            }
            let refs: Vec<&Tensor> = members.iter().collect();
            let tag = format!("{fam}-{}", d.name());
            push(
                out,
                "index",
                soc,
                (&st, &x),
                json!({"indices": members.iter().map(tensor_json).collect::<Vec<_>>()}),
                expect(cpu_ref::index(soc, &x, &refs)),
                &tag,
            );
        }
    }
}

/// The SoC seed cases without one were written for (the runner's default).
const SEED_SOC: &str = "Ascend910B3";

/// Adds `"soc": SEED_SOC` after the `op` of every case of `seeds.jsonl`
/// that names no SoC, keeping each line as written otherwise; checks that
/// every case then reads back with a SoC.
fn name_the_seeds_soc() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases/seeds.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut out = String::new();
    let mut added = 0;
    for line in text.lines() {
        let t = line.trim();
        let mut line = line.to_string();
        if !t.is_empty() && !t.starts_with("//") {
            let v: Value = serde_json::from_str(t).unwrap();
            if v.get("soc").is_none() {
                let op = format!("\"op\": {}, ", serde_json::to_string(&v["op"]).unwrap());
                let at = line
                    .find(&op)
                    .expect("a seed case writes `\"op\": ..., ` as its second field")
                    + op.len();
                line.insert_str(at, &format!("\"soc\": \"{SEED_SOC}\", "));
                added += 1;
            }
            let back = npu_ops_cli::conformance::parse_case(line.trim(), "seeds").unwrap();
            assert!(back.soc.is_some(), "{}", back.id);
        }
        out.push_str(&line);
        out.push('\n');
    }
    std::fs::write(&path, out).unwrap();
    eprintln!(
        "{added} seed cases given soc {SEED_SOC} in {}",
        path.display()
    );
}
/// The signature of `main`'s `push`.
type Push<'a> = dyn Fn(&mut Vec<Value>, &str, &str, (&Tensor, &Tensor), Value, Value, &str) + 'a;

/// The reflection, replication and circular pads (ops.md §16, §17): every
/// family x operator x dtype on a transposed input, then random shapes,
/// views, paddings (negative, too large, wrong length) and empty batches
/// on A2, every expectation from cpu-ref.
fn pad_cases(out: &mut Vec<Value>, r: &mut Rng, push: &Push) {
    use cpu_ref::Op;
    let ops = [
        Op::ReflectionPad1d,
        Op::ReflectionPad2d,
        Op::ReflectionPad3d,
        Op::ReplicationPad1d,
        Op::ReplicationPad2d,
        Op::ReplicationPad3d,
        Op::CircularPad2d,
        Op::CircularPad3d,
    ];
    for soc in SOCS {
        let fam = format!("{:?}", Family::from_soc(soc).unwrap()).to_lowercase();
        for op in ops {
            let (_, k) = cpu_ref::pad_kind(op).unwrap();
            let shape: Vec<usize> = [2, 3, 4, 3][..k + 1].to_vec();
            let padding: Vec<i64> = (0..2 * k as i64).map(|v| (v * 5 + 1) % 3).collect();
            for d in DType::ALL {
                let mut s2 = shape.clone();
                s2.swap(0, k);
                let st = storage(d, &s2, r);
                let mut strides = st.strides().to_vec();
                strides.swap(0, k);
                let x = st.view(&shape, &strides, 0).unwrap();
                push(
                    out,
                    op.name(),
                    soc,
                    (&st, &x),
                    json!({"padding": padding}),
                    expect(cpu_ref::pad(op, soc, &x, &padding)),
                    &format!("{fam}-{}", d.name()),
                );
            }
        }
    }
    let a2 = "Ascend910B3";
    for op in ops {
        let (_, k) = cpu_ref::pad_kind(op).unwrap();
        let list = cpu_ref::supported_dtypes(op, Family::A2);
        for i in 0..40 {
            let d = list[r.below(list.len() as u64) as usize];
            let (st, x) = loop {
                let (st, x) = input(d, r, k + 2);
                if x.rank() + 1 >= k || i % 8 == 0 {
                    break (st, x);
                }
            };
            let len = if r.below(10) == 0 {
                r.below(7) as usize
            } else {
                2 * k
            };
            let padding: Vec<i64> = (0..len)
                .map(|_| match r.below(12) {
                    0 => -1,
                    1 => r.range(3, 9),
                    _ => r.range(0, 3),
                })
                .collect();
            let tag = if i % 10 == 0 { "zero-batch" } else { "random" };
            let (st, x) = if tag == "zero-batch" {
                let mut shape: Vec<usize> = (0..k + 2).map(|_| 1 + r.below(3) as usize).collect();
                shape[0] = 0;
                let st = storage(d, &shape, r);
                (st.clone(), st)
            } else {
                (st, x)
            };
            push(
                out,
                op.name(),
                a2,
                (&st, &x),
                json!({"padding": padding}),
                expect(cpu_ref::pad(op, a2, &x, &padding)),
                tag,
            );
        }
    }
}

/// The slices family (issue 21: SliceV2, ops.md §31; SliceV3 in
/// [`slice_v3_cases`], after it), appended after every
/// earlier block from a random stream of its own, so no earlier line moves.
fn slice_cases<F>(out: &mut Vec<Value>, push: &F)
where
    F: Fn(&mut Vec<Value>, &str, &str, (&Tensor, &Tensor), Value, Value, &str),
{
    let mut r = Rng(0x0051_1CE5_0031);
    // Random distinct axes (some spelt negative) with random bounds and
    // steps, mostly in range, now and then extreme.
    let args = |r: &mut Rng, rank: usize| -> [Vec<i64>; 4] {
        let mut axes: Vec<i64> = Vec::new();
        let (mut st, mut en, mut sp) = (Vec::new(), Vec::new(), Vec::new());
        for d in 0..rank as i64 {
            if r.below(2) == 0 {
                continue;
            }
            axes.push(if r.below(3) == 0 { d - rank as i64 } else { d });
            st.push(if r.below(6) == 0 {
                r.extreme(-6, 6)
            } else {
                r.range(-4, 5)
            });
            en.push(if r.below(6) == 0 {
                r.extreme(-6, 6)
            } else {
                r.range(-4, 6)
            });
            sp.push(if r.below(8) == 0 {
                r.extreme(1, 4)
            } else {
                r.range(1, 4)
            });
        }
        // Shuffle the listed axes (with their arrays) now and then.
        if axes.len() > 1 && r.below(2) == 0 {
            let (i, j) = (0, axes.len() - 1);
            axes.swap(i, j);
            st.swap(i, j);
            en.swap(i, j);
            sp.swap(i, j);
        }
        [st, en, axes, sp]
    };
    let params =
        |a: &[Vec<i64>; 4]| json!({"starts": a[0], "ends": a[1], "axes": a[2], "steps": a[3]});
    let call = |soc: &str, x: &Tensor, a: &[Vec<i64>; 4]| {
        expect(cpu_ref::slice_v2(soc, x, &a[0], &a[1], &a[2], &a[3]))
    };
    // Every family x dtype on random views (ranks 0 to 4).
    for soc in SOCS {
        let fam = format!("{:?}", Family::from_soc(soc).unwrap()).to_lowercase();
        for d in DType::ALL {
            for _ in 0..2 {
                let (st, x) = input(d, &mut r, 4);
                let a = args(&mut r, x.rank());
                push(
                    out,
                    "slice_v2",
                    soc,
                    (&st, &x),
                    params(&a),
                    call(soc, &x, &a),
                    &format!("{fam}-{}", d.name()),
                );
            }
        }
    }
    // Random calls on A2 breaking one rule: an axis out of range or
    // repeated, an array of another length, a step below 1.
    let a2 = "Ascend910B3";
    for _ in 0..60 {
        let d = DType::ALL[r.below(DType::ALL.len() as u64) as usize];
        let (st, x) = input(d, &mut r, 4);
        let mut a = args(&mut r, x.rank());
        let tag = match r.below(5) {
            0 => {
                a[2].push(r.extreme(-10, 10));
                for k in [0, 1, 3] {
                    a[k].push(1);
                }
                "axis"
            }
            1 if !a[2].is_empty() => {
                let v = a[2][0];
                a[2].push(v);
                for k in [0, 1, 3] {
                    a[k].push(0);
                }
                "repeated-axis"
            }
            2 => {
                let k = [0, 1, 3][r.below(3) as usize];
                if a[k].is_empty() || r.below(2) == 0 {
                    a[k].push(0);
                } else {
                    a[k].pop();
                }
                "length"
            }
            3 if !a[3].is_empty() => {
                let k = r.below(a[3].len() as u64) as usize;
                a[3][k] = r.extreme(-3, 1).min(0);
                "step"
            }
            _ => "random",
        };
        push(
            out,
            "slice_v2",
            a2,
            (&st, &x),
            params(&a),
            call(a2, &x, &a),
            tag,
        );
    }
}

/// SliceV3 (issue 21, ops.md §31), appended after SliceV2's block from a
/// random stream of its own.
fn slice_v3_cases<F>(out: &mut Vec<Value>, push: &F)
where
    F: Fn(&mut Vec<Value>, &str, &str, (&Tensor, &Tensor), Value, Value, &str),
{
    let mut r = Rng(0x0051_1CE5_0032);
    // A box inside the view: begin in [0, N], size in [0, N - begin].
    let boxed = |r: &mut Rng, shape: &[usize]| -> (Vec<i64>, Vec<i64>) {
        let begin: Vec<i64> = shape.iter().map(|&n| r.range(0, n as i64 + 1)).collect();
        let size = shape
            .iter()
            .zip(&begin)
            .map(|(&n, &b)| r.range(0, n as i64 - b + 1))
            .collect();
        (begin, size)
    };
    let call =
        |soc: &str, x: &Tensor, b: &[i64], z: &[i64]| expect(cpu_ref::slice_v3(soc, x, b, z));
    // Every family x dtype on random views (ranks 0 to 4).
    for soc in SOCS {
        let fam = format!("{:?}", Family::from_soc(soc).unwrap()).to_lowercase();
        for d in DType::ALL {
            for _ in 0..2 {
                let (st, x) = input(d, &mut r, 4);
                let (b, z) = boxed(&mut r, x.shape());
                push(
                    out,
                    "slice_v3",
                    soc,
                    (&st, &x),
                    json!({"begin": b, "size": z}),
                    call(soc, &x, &b, &z),
                    &format!("{fam}-{}", d.name()),
                );
            }
        }
    }
    // Random calls on A2 breaking one rule: a length, a begin outside
    // [0, N], a size past the extent or negative.
    let a2 = "Ascend910B3";
    for _ in 0..60 {
        let d = [DType::Float32, DType::Int16, DType::UInt8, DType::BFloat16][r.below(4) as usize];
        let (st, x) = input(d, &mut r, 4);
        let (mut b, mut z) = boxed(&mut r, x.shape());
        let tag = match r.below(5) {
            0 => {
                if b.is_empty() || r.below(2) == 0 {
                    b.push(0);
                } else {
                    z.pop();
                }
                "length"
            }
            1 if !b.is_empty() => {
                let k = r.below(b.len() as u64) as usize;
                b[k] = r.extreme(-3, 8);
                "begin"
            }
            2 if !z.is_empty() => {
                let k = r.below(z.len() as u64) as usize;
                z[k] = r.extreme(-3, 8);
                "size"
            }
            _ => "random",
        };
        push(
            out,
            "slice_v3",
            a2,
            (&st, &x),
            json!({"begin": b, "size": z}),
            call(a2, &x, &b, &z),
            tag,
        );
    }
}

/// The aclnn AsStrided (issue 21, ops.md §33), appended after the slices'
/// blocks from a random stream of its own.
fn as_strided_aclnn_cases<F>(out: &mut Vec<Value>, push: &F)
where
    F: Fn(&mut Vec<Value>, &str, &str, (&Tensor, &Tensor), Value, Value, &str),
{
    let mut r = Rng(0x0051_1CE5_0033);
    // A window inside flat(x): random sizes and strides, the offset taken
    // so that the largest position read fits (when it can).
    let window = |r: &mut Rng, numel: usize| -> (Vec<i64>, Vec<i64>, i64) {
        let k = 1 + r.below(3) as usize;
        let size: Vec<i64> = (0..k).map(|_| r.range(0, 4)).collect();
        let stride: Vec<i64> = (0..k).map(|_| r.range(0, 4)).collect();
        let span: i64 = size
            .iter()
            .zip(&stride)
            .map(|(&n, &s)| (n - 1).max(0) * s)
            .sum();
        let room = numel as i64 - span;
        let offset = if room > 0 { r.range(0, room) } else { 0 };
        (size, stride, offset)
    };
    let call = |soc: &str, x: &Tensor, w: &(Vec<i64>, Vec<i64>, i64)| {
        expect(cpu_ref::as_strided_aclnn(soc, x, &w.0, &w.1, w.2))
    };
    let params = |w: &(Vec<i64>, Vec<i64>, i64)| json!({"size": w.0, "stride": w.1, "offset": w.2});
    for soc in SOCS {
        let fam = format!("{:?}", Family::from_soc(soc).unwrap()).to_lowercase();
        for d in DType::ALL {
            for _ in 0..2 {
                let (st, x) = input(d, &mut r, 3);
                let w = window(&mut r, x.numel());
                push(
                    out,
                    "as_strided_aclnn",
                    soc,
                    (&st, &x),
                    params(&w),
                    call(soc, &x, &w),
                    &format!("{fam}-{}", d.name()),
                );
            }
        }
    }
    // Random calls on A2 breaking one rule: lengths, a negative or
    // extreme entry, a window past the end.
    let a2 = "Ascend910B3";
    for _ in 0..60 {
        let d = [
            DType::Float32,
            DType::Int64,
            DType::UInt16,
            DType::Complex64,
        ][r.below(4) as usize];
        let (st, x) = input(d, &mut r, 3);
        let mut w = window(&mut r, x.numel());
        let tag = match r.below(6) {
            0 => {
                if r.below(2) == 0 {
                    w.1.push(1);
                } else {
                    w.0 = vec![1; 9];
                    w.1 = vec![1; 9];
                }
                "length"
            }
            1 => {
                let k = r.below(w.0.len() as u64) as usize;
                w.0[k] = r.extreme(-3, 4);
                "size"
            }
            2 => {
                let k = r.below(w.1.len() as u64) as usize;
                w.1[k] = r.extreme(-3, 4);
                "stride"
            }
            3 => {
                w.2 = r.extreme(-3, 30);
                "offset"
            }
            _ => "random",
        };
        push(
            out,
            "as_strided_aclnn",
            a2,
            (&st, &x),
            params(&w),
            call(a2, &x, &w),
            tag,
        );
    }
}

/// `begin`, `end`, `strides` and `axes` of a StridedSliceAssignV2 case.
type AssignArgs = (Vec<i64>, Vec<i64>, Vec<i64>, Option<Vec<i64>>);

/// StridedSliceAssignV2 (issue 21, ops.md §35), appended last from a
/// random stream of its own; the expectation is the new value of the
/// input.
fn slice_assign_cases<F>(out: &mut Vec<Value>, push: &F)
where
    F: Fn(&mut Vec<Value>, &str, &str, (&Tensor, &Tensor), Value, Value, &str),
{
    let mut r = Rng(0x0051_1CE5_0035);
    // Leading axes with bounds mostly in range, strides 1 to 3 (1 on the
    // last axis), axes now and then spelt out (negative ones too).
    let args = |r: &mut Rng, rank: usize| -> AssignArgs {
        let k = r.below(rank as u64 + 1) as usize;
        let b: Vec<i64> = (0..k)
            .map(|_| {
                if r.below(8) == 0 {
                    r.extreme(-4, 4)
                } else {
                    r.range(-3, 4)
                }
            })
            .collect();
        let e: Vec<i64> = (0..k)
            .map(|_| {
                if r.below(8) == 0 {
                    r.extreme(-4, 5)
                } else {
                    r.range(-3, 6)
                }
            })
            .collect();
        let st: Vec<i64> = (0..k)
            .map(|i| if i + 1 == rank { 1 } else { r.range(1, 4) })
            .collect();
        let axes = (r.below(3) == 0).then(|| {
            (0..k as i64)
                .map(|d| if r.below(2) == 0 { d - rank as i64 } else { d })
                .collect()
        });
        (b, e, st, axes)
    };
    let call = |soc: &str, x: &Tensor, r: &mut Rng, a: &AssignArgs, bad: bool| {
        let shape =
            cpu_ref::strided_slice_assign_ranges(x.shape(), &a.0, &a.1, &a.2, a.3.as_deref())
                .map(|v| v.iter().map(|t| t.2).collect::<Vec<usize>>())
                .unwrap_or_else(|_| vec![1]);
        let mut shape = shape;
        if bad && !shape.is_empty() {
            shape[0] += 1;
        }
        let value = storage(x.dtype(), &shape, r);
        let e = expect(cpu_ref::strided_slice_assign_v2(
            soc,
            x,
            &value,
            &a.0,
            &a.1,
            &a.2,
            a.3.as_deref(),
        ));
        let mut p = json!({"value": tensor_json(&value), "begin": a.0, "end": a.1, "strides": a.2});
        if let Some(ax) = &a.3 {
            p["axes"] = json!(ax);
        }
        (p, e)
    };
    for soc in SOCS {
        let fam = format!("{:?}", Family::from_soc(soc).unwrap()).to_lowercase();
        for d in DType::ALL {
            for _ in 0..2 {
                let (st, x) = input(d, &mut r, 3);
                let a = args(&mut r, x.rank());
                let (p, e) = call(soc, &x, &mut r, &a, false);
                push(
                    out,
                    "strided_slice_assign_v2",
                    soc,
                    (&st, &x),
                    p,
                    e,
                    &format!("{fam}-{}", d.name()),
                );
            }
        }
    }
    // Random calls on A2 breaking one rule: a length, an axis, a stride,
    // the value's shape.
    let a2 = "Ascend910B3";
    for _ in 0..60 {
        let d = [DType::Float32, DType::Int8, DType::Float64, DType::BFloat16][r.below(4) as usize];
        let (st, x) = input(d, &mut r, 3);
        let mut a = args(&mut r, x.rank());
        let mut bad_shape = false;
        let tag = match r.below(5) {
            0 => {
                a.1.push(0);
                "length"
            }
            1 => {
                a.3 = Some(vec![r.extreme(-5, 5); a.0.len()]);
                "axes"
            }
            2 if !a.2.is_empty() => {
                a.2[0] = r.extreme(-2, 3);
                "strides"
            }
            3 => {
                bad_shape = true;
                "value"
            }
            _ => "random",
        };
        let (p, e) = call(a2, &x, &mut r, &a, bad_shape);
        push(out, "strided_slice_assign_v2", a2, (&st, &x), p, e, tag);
    }
}

/// One window of a ViewCopy case: `size`, `stride`, `offset`.
type Win = (Vec<i64>, Vec<i64>, i64);

/// ViewCopy (issue 21, ops.md §34), appended last from a random stream of
/// its own; `src` is a second random input (any view).
fn view_copy_cases<F>(out: &mut Vec<Value>, push: &F)
where
    F: Fn(&mut Vec<Value>, &str, &str, (&Tensor, &Tensor), Value, Value, &str),
{
    let mut r = Rng(0x0051_1CE5_0034);
    // A stride/offset for `size` inside `numel` positions (when it can).
    let place = |r: &mut Rng, size: &[i64], numel: usize| -> (Vec<i64>, i64) {
        let stride: Vec<i64> = size.iter().map(|_| r.range(0, 5)).collect();
        let span: i64 = size
            .iter()
            .zip(&stride)
            .map(|(&n, &s)| (n - 1).max(0) * s)
            .sum();
        let room = numel as i64 - span;
        (stride, if room > 0 { r.range(0, room) } else { 0 })
    };
    let windows = |r: &mut Rng, dn: usize, sn: usize| -> (Win, Win) {
        let k = 1 + r.below(3) as usize;
        let size: Vec<i64> = (0..k).map(|_| r.range(0, 4)).collect();
        let (ds, doff) = place(r, &size, dn);
        let (ss, soff) = place(r, &size, sn);
        ((size.clone(), ds, doff), (size, ss, soff))
    };
    let call = |soc: &str, x: &Tensor, src: &Tensor, w: &(Win, Win)| {
        let (a, b) = (&w.0, &w.1);
        expect(cpu_ref::view_copy(
            soc,
            x,
            cpu_ref::Window {
                size: &a.0,
                stride: &a.1,
                offset: a.2,
            },
            src,
            cpu_ref::Window {
                size: &b.0,
                stride: &b.1,
                offset: b.2,
            },
        ))
    };
    let params = |sst: &Tensor, src: &Tensor, w: &(Win, Win)| {
        json!({
            "src": input_json(sst, src),
            "dst_size": w.0 .0, "dst_stride": w.0 .1, "dst_offset": w.0 .2,
            "src_size": w.1 .0, "src_stride": w.1 .1, "src_offset": w.1 .2,
        })
    };
    for soc in SOCS {
        let fam = format!("{:?}", Family::from_soc(soc).unwrap()).to_lowercase();
        for d in DType::ALL {
            for _ in 0..2 {
                let (st, x) = input(d, &mut r, 3);
                let (sst, src) = input(d, &mut r, 3);
                let w = windows(&mut r, x.numel(), src.numel());
                push(
                    out,
                    "view_copy",
                    soc,
                    (&st, &x),
                    params(&sst, &src, &w),
                    call(soc, &x, &src, &w),
                    &format!("{fam}-{}", d.name()),
                );
            }
        }
    }
    let a2 = "Ascend910B3";
    // More valid calls on A2, where the operator exists: every listed
    // dtype, any views.
    let listed = cpu_ref::supported_dtypes(cpu_ref::Op::ViewCopy, Family::A2);
    for i in 0..110 {
        let d = listed[i % listed.len()];
        let (st, x) = input(d, &mut r, 3);
        let (sst, src) = input(d, &mut r, 3);
        let w = windows(&mut r, x.numel(), src.numel());
        push(
            out,
            "view_copy",
            a2,
            (&st, &x),
            params(&sst, &src, &w),
            call(a2, &x, &src, &w),
            &format!("a2-{}", d.name()),
        );
    }
    // Random calls on A2 breaking one rule: a length, a sign, the sizes
    // differing, a window past the end or writing twice, src's dtype.
    for _ in 0..80 {
        let d = [DType::Float32, DType::Int64, DType::UInt16, DType::Bool][r.below(4) as usize];
        let (st, x) = input(d, &mut r, 3);
        let (mut sst, mut src) = input(d, &mut r, 3);
        let mut w = windows(&mut r, x.numel(), src.numel());
        let tag = match r.below(7) {
            0 => {
                if r.below(2) == 0 {
                    w.0 .1.push(1);
                } else {
                    w.1 .0.push(1);
                }
                "length"
            }
            1 => {
                let k = r.below(w.0 .0.len() as u64) as usize;
                w.0 .1[k] = r.extreme(-3, 4);
                "stride"
            }
            2 => {
                w.1 .2 = r.extreme(-3, 30);
                "offset"
            }
            3 => {
                let k = r.below(w.1 .0.len() as u64) as usize;
                w.1 .0[k] += 1;
                "sizes-differ"
            }
            4 => {
                w.0 .1 = vec![0; w.0 .0.len()];
                "writes-twice"
            }
            5 => {
                (sst, src) = input(DType::Int32, &mut r, 3);
                "src-dtype"
            }
            _ => "random",
        };
        push(
            out,
            "view_copy",
            a2,
            (&st, &x),
            params(&sst, &src, &w),
            call(a2, &x, &src, &w),
            tag,
        );
    }
}
