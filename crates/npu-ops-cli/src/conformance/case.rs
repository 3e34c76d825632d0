//! Reading case files (`spec/conformance-format.md`).

use super::json_float;
use super::slot::{fields, Given, Object, Slot};
use npu_ops::DType;
use serde::de::value::MapAccessDeserializer;
use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::{Map, Number, Value};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// A tensor as a case file writes it: dtype, shape, row-major bytes, and
/// an optional view over that storage.
#[derive(Clone, Debug, PartialEq)]
pub struct CaseTensor {
    /// Element type.
    pub dtype: DType,
    /// Storage shape.
    pub shape: Vec<usize>,
    /// Storage bytes, row-major, little-endian.
    pub bytes: Vec<u8>,
    /// `input.view`: (shape, strides, offset) in elements over the storage.
    pub view: Option<(Vec<usize>, Vec<usize>, usize)>,
}

/// What a case expects.
#[derive(Clone, Debug, PartialEq)]
pub enum Expect {
    /// This output exactly.
    Output(CaseTensor),
    /// These outputs exactly, in order (an operator that returns a tensor
    /// list: `expect.tensors`).
    Outputs(Vec<CaseTensor>),
    /// An error of this kind (`invalid_argument`, ...).
    Error(String),
}

/// One case.
#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    /// Unique name.
    pub id: String,
    /// `slice`, `index_select`, `as_strided`, `sampled_slice`, `subtensor`,
    /// `add`, `mul`, `cat`, `stack`, `fill_scalar`, `zero`, `cast`, `tril`,
    /// `triu`, `split_tensor`, `split_with_size`, `reflection_pad1d` ..
    /// `reflection_pad3d`, `replication_pad1d` .. `replication_pad3d`,
    /// `circular_pad2d`, `circular_pad3d`, `permute`, `flip`, `roll`, `expand`,
    /// `repeat`, `embedding`, `slice_v2`, `slice_v3`, `as_strided_aclnn`,
    /// `view_copy`, `strided_slice_assign_v2`, `gather_v2`, `gather`, `take`,
    /// `index_copy`, `gather_nd`, `masked_select`, `index`.
    pub op: String,
    /// The SoC to run as, if given.
    pub soc: Option<String>,
    /// The input (for `cat` and `stack`, the list's first member; the others are in
    /// `params.others`).
    pub input: CaseTensor,
    /// Operator parameters (read when run).
    pub params: Value,
    /// The expectation.
    pub expect: Expect,
    /// Where it came from (`file:line`).
    pub origin: String,
}

/// A line that could not be read as a case.
#[derive(Clone, Debug, PartialEq)]
pub struct Malformed {
    /// `file:line`.
    pub origin: String,
    /// What is wrong.
    pub error: String,
}

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
    "fill_scalar",
    "zero",
    "cast",
    "permute",
    "flip",
    "roll",
    "expand",
    "repeat",
    "tril",
    "triu",
    "split_tensor",
    "split_with_size",
    "embedding",
    "reflection_pad1d",
    "reflection_pad2d",
    "reflection_pad3d",
    "replication_pad1d",
    "replication_pad2d",
    "replication_pad3d",
    "circular_pad2d",
    "circular_pad3d",
    "slice_v2",
    "slice_v3",
    "as_strided_aclnn",
    "view_copy",
    "strided_slice_assign_v2",
    "gather_v2",
    "gather",
    "take",
    "index_copy",
    "gather_nd",
    "masked_select",
    "index",
];
const KINDS: [&str; 4] = [
    "invalid_argument",
    "unsupported_dtype",
    "unsupported_op",
    "index_out_of_range",
];

/// A case line's fields as written (each checked by [`parse_case`], in
/// the format's order; other fields are ignored).
#[derive(Default, Deserialize)]
#[serde(default)]
struct CaseFields {
    id: Slot<String>,
    op: Slot<String>,
    soc: Slot<String>,
    input: Given<Object<TensorFields>>,
    params: Slot<Map<String, Value>>,
    expect: Given<Object<TensorFields>>,
}

/// A tensor object's fields as written (checked by [`read_tensor`]).
#[derive(Default, Deserialize)]
#[serde(default)]
struct TensorFields {
    dtype: Slot<String>,
    shape: Slot<Vec<Slot<u64>>>,
    data: Data,
    /// Absent and `null` alike: no view.
    view: Option<Object<ViewFields>>,
    /// Read only in `expect`, where it stands for the whole object.
    error: Slot<String>,
    /// Read only in `expect`: a list of tensor objects (the outputs of an
    /// operator that returns a tensor list), standing for the whole object.
    tensors: Slot<Vec<Value>>,
}

/// `input.view`'s fields as written.
#[derive(Default, Deserialize)]
#[serde(default)]
struct ViewFields {
    shape: Slot<Vec<Slot<u64>>>,
    strides: Slot<Vec<Slot<u64>>>,
    offset: Slot<u64>,
}

/// A tensor's `data` as written: read straight into [`Datum`]s (no copy
/// of a long list as JSON values).
#[derive(Default)]
enum Data {
    /// No `data` field.
    #[default]
    Absent,
    /// Not a list.
    NotList,
    /// The values.
    List(Vec<Datum>),
}

/// One value of `data` as written.
#[derive(Debug)]
enum Datum {
    /// A number, exactly as read (an integer as an integer).
    Number(Number),
    /// `true` or `false`.
    Bool(bool),
    /// A string (`"nan"`, `"inf"`, `"-inf"` for a float).
    Text(String),
    /// A list (`[re, im]` for a complex value).
    List(Vec<Datum>),
    /// `null` or an object.
    Other(Box<Value>),
}

impl Datum {
    /// The value as JSON, as messages write it.
    fn json(&self) -> Value {
        match self {
            Datum::Number(n) => Value::Number(n.clone()),
            Datum::Bool(b) => Value::Bool(*b),
            Datum::Text(s) => Value::String(s.clone()),
            Datum::List(l) => Value::Array(l.iter().map(Datum::json).collect()),
            Datum::Other(v) => (**v).clone(),
        }
    }
}

impl std::fmt::Display for Datum {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        self.json().fmt(f)
    }
}

impl<'de> Deserialize<'de> for Data {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Data;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Data, A::Error> {
                let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0));
                while let Some(x) = seq.next_element()? {
                    out.push(x);
                }
                Ok(Data::List(out))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Data, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Data::NotList)
            }
            fn visit_bool<E>(self, _: bool) -> Result<Data, E> {
                Ok(Data::NotList)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Data, E> {
                Ok(Data::NotList)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Data, E> {
                Ok(Data::NotList)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Data, E> {
                Ok(Data::NotList)
            }
            fn visit_str<E>(self, _: &str) -> Result<Data, E> {
                Ok(Data::NotList)
            }
            fn visit_unit<E>(self) -> Result<Data, E> {
                Ok(Data::NotList)
            }
        }
        d.deserialize_any(V)
    }
}

impl<'de> Deserialize<'de> for Datum {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Datum;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_bool<E>(self, b: bool) -> Result<Datum, E> {
                Ok(Datum::Bool(b))
            }
            fn visit_i64<E>(self, i: i64) -> Result<Datum, E> {
                Ok(Datum::Number(i.into()))
            }
            fn visit_u64<E>(self, u: u64) -> Result<Datum, E> {
                Ok(Datum::Number(u.into()))
            }
            fn visit_f64<E>(self, x: f64) -> Result<Datum, E> {
                // JSON numbers are finite.
                Ok(Number::from_f64(x).map_or(Datum::Other(Box::new(Value::Null)), Datum::Number))
            }
            fn visit_str<E>(self, s: &str) -> Result<Datum, E> {
                Ok(Datum::Text(s.into()))
            }
            fn visit_string<E>(self, s: String) -> Result<Datum, E> {
                Ok(Datum::Text(s))
            }
            fn visit_unit<E>(self) -> Result<Datum, E> {
                Ok(Datum::Other(Box::new(Value::Null)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Datum, A::Error> {
                let mut out = Vec::new();
                while let Some(x) = seq.next_element()? {
                    out.push(x);
                }
                Ok(Datum::List(out))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Datum, A::Error> {
                Value::deserialize(MapAccessDeserializer::new(map))
                    .map(|v| Datum::Other(Box::new(v)))
            }
        }
        d.deserialize_any(V)
    }
}

/// An integer parameter (any i64).
pub fn int(v: &Value, ctx: &str) -> Result<i64, String> {
    v.as_i64()
        .ok_or_else(|| format!("{ctx}: expected an integer (i64), got {v}"))
}

/// A list of integer parameters.
pub fn ints(v: &Value, ctx: &str) -> Result<Vec<i64>, String> {
    v.as_array()
        .ok_or_else(|| format!("{ctx}: expected a list of integers, got {v}"))?
        .iter()
        .enumerate()
        .map(|(i, x)| int(x, &format!("{ctx}[{i}]")))
        .collect()
}

/// A required field: `ctx: missing field `name`` when absent.
fn required<T>(slot: Slot<T>, name: &str, ctx: &str) -> Result<Slot<T>, String> {
    if slot.present() {
        Ok(slot)
    } else {
        Err(format!("{ctx}: missing field `{name}`"))
    }
}

fn extents(v: Slot<Vec<Slot<u64>>>, ctx: &str) -> Result<Vec<usize>, String> {
    let written = v.written();
    v.got()
        .ok_or_else(|| format!("{ctx}: expected a list of extents, got {written}"))?
        .into_iter()
        .map(|x| match x {
            Slot::Got(n) => Ok(n as usize),
            x => Err(format!(
                "{ctx}: extent {} is not a non-negative integer",
                x.written()
            )),
        })
        .collect()
}

/// A float value: a number, or "nan", "inf", "-inf".
fn float(v: &Datum, ctx: &str) -> Result<f64, String> {
    match v {
        Datum::Text(s) => json_float::special(s),
        Datum::Number(n) => n.as_f64(),
        _ => None,
    }
    .ok_or_else(|| format!("{ctx}: expected a number or \"nan\"/\"inf\"/\"-inf\", got {v}"))
}

fn exact_int<T: TryFrom<i128>>(v: &Datum, ctx: &str, dtype: DType) -> Result<T, String> {
    let i: Option<i128> = match v {
        Datum::Number(n) => n
            .as_i64()
            .map(i128::from)
            .or_else(|| n.as_u64().map(i128::from))
            .or_else(|| {
                n.as_f64()
                    .filter(|f| f.fract() == 0.0 && f.abs() < 1e30)
                    .map(|f| f as i128)
            }),
        _ => None,
    };
    i.and_then(|i| T::try_from(i).ok())
        .ok_or_else(|| format!("{ctx}: {v} is not a {dtype} value"))
}

/// The little-endian bytes of one element.
fn element(v: &Datum, dtype: DType, ctx: &str, out: &mut Vec<u8>) -> Result<(), String> {
    let not_exact = |x: f64| format!("{ctx}: {x} is not exactly representable in {dtype}");
    match dtype {
        DType::Bool => {
            let b = match v {
                Datum::Bool(b) => Some(*b as u8),
                Datum::Number(n) => n.as_u64().filter(|&b| b <= 1).map(|b| b as u8),
                _ => None,
            };
            out.push(b.ok_or_else(|| format!("{ctx}: {v} is not a bool (true/false/0/1)"))?);
        }
        DType::I8 => out.extend(exact_int::<i8>(v, ctx, dtype)?.to_le_bytes()),
        DType::U8 => out.extend(exact_int::<u8>(v, ctx, dtype)?.to_le_bytes()),
        DType::I16 => out.extend(exact_int::<i16>(v, ctx, dtype)?.to_le_bytes()),
        DType::U16 => out.extend(exact_int::<u16>(v, ctx, dtype)?.to_le_bytes()),
        DType::I32 => out.extend(exact_int::<i32>(v, ctx, dtype)?.to_le_bytes()),
        DType::U32 => out.extend(exact_int::<u32>(v, ctx, dtype)?.to_le_bytes()),
        DType::I64 => out.extend(exact_int::<i64>(v, ctx, dtype)?.to_le_bytes()),
        DType::U64 => out.extend(exact_int::<u64>(v, ctx, dtype)?.to_le_bytes()),
        DType::F64 => out.extend(float(v, ctx)?.to_le_bytes()),
        DType::F32 => {
            let x = float(v, ctx)?;
            let f = x as f32;
            if !(x.is_nan() || f as f64 == x) {
                return Err(not_exact(x));
            }
            out.extend(f.to_le_bytes());
        }
        DType::F16 => {
            let x = float(v, ctx)?;
            let h = half::f16::from_f64(x);
            if !(x.is_nan() || h.to_f64() == x) {
                return Err(not_exact(x));
            }
            out.extend(h.to_bits().to_le_bytes());
        }
        DType::BF16 => {
            let x = float(v, ctx)?;
            let h = half::bf16::from_f64(x);
            if !(x.is_nan() || h.to_f64() == x) {
                return Err(not_exact(x));
            }
            out.extend(h.to_bits().to_le_bytes());
        }
        DType::C64 | DType::C128 => {
            let pair = match v {
                Datum::List(a) if a.len() == 2 => a,
                _ => {
                    return Err(format!(
                        "{ctx}: a complex value is a [re, im] pair, got {v}"
                    ))
                }
            };
            let part = if dtype == DType::C64 {
                DType::F32
            } else {
                DType::F64
            };
            element(&pair[0], part, ctx, out)?;
            element(&pair[1], part, ctx, out)?;
        }
        _ => return Err(format!("{ctx}: the case format has no values of {dtype}")),
    }
    Ok(())
}

/// Checks a tensor object's fields, in the format's order.
fn read_tensor(t: TensorFields, ctx: &str) -> Result<CaseTensor, String> {
    let name = required(t.dtype, "dtype", ctx)?
        .got()
        .ok_or_else(|| format!("{ctx}.dtype: expected a string"))?;
    let dtype =
        DType::from_name(&name).ok_or_else(|| format!("{ctx}.dtype: unknown dtype {name:?}"))?;
    let shape = extents(required(t.shape, "shape", ctx)?, &format!("{ctx}.shape"))?;
    let data = match t.data {
        Data::Absent => return Err(format!("{ctx}: missing field `data`")),
        Data::NotList => return Err(format!("{ctx}.data: expected a list")),
        Data::List(d) => d,
    };
    let n = numel(&shape).map_err(|e| format!("{ctx}.shape: {e}"))?;
    if data.len() != n {
        return Err(format!(
            "{ctx}.data: {} values for shape {shape:?} ({n} elements)",
            data.len()
        ));
    }
    let mut bytes = Vec::with_capacity(n * dtype.size());
    for (i, x) in data.iter().enumerate() {
        element(x, dtype, &format!("{ctx}.data[{i}]"), &mut bytes)?;
    }
    drop(data);
    let view = match t.view {
        None => None,
        Some(Object(w)) => {
            let vctx = format!("{ctx}.view");
            let s = extents(required(w.shape, "shape", &vctx)?, &format!("{vctx}.shape"))?;
            let st = extents(
                required(w.strides, "strides", &vctx)?,
                &format!("{vctx}.strides"),
            )?;
            let off = required(w.offset, "offset", &vctx)?
                .got()
                .ok_or_else(|| format!("{vctx}.offset: expected a non-negative integer"))?;
            Some((s, st, off as usize))
        }
    };
    Ok(CaseTensor {
        dtype,
        shape,
        bytes,
        view,
    })
}

/// A tensor object (`dtype`, `shape`, `data`, optional `view`).
pub fn tensor(v: &Value, ctx: &str) -> Result<CaseTensor, String> {
    let t: TensorFields = fields(v.clone()).map_err(|e| format!("{ctx}: {e}"))?;
    read_tensor(t, ctx)
}

/// Reads one JSON line.
pub fn parse_case(line: &str, origin: &str) -> Result<Case, String> {
    // Read as a JSON value first: a key given twice counts once, the last
    // one, and what is not JSON is told apart from what is not a case.
    let v: Value = serde_json::from_str(line).map_err(|e| format!("not JSON: {e}"))?;
    let c: CaseFields = fields(v).map_err(|e| format!("case: {e}"))?;
    let id = required(c.id, "id", "case")?
        .got()
        .ok_or("case.id: expected a string")?;
    let op = required(c.op, "op", &id)?
        .got()
        .ok_or_else(|| format!("{id}.op: expected a string"))?;
    if !OPS.contains(&op.as_str()) {
        return Err(format!(
            "{id}.op: unknown operator {op:?} (one of {})",
            OPS.join(", ")
        ));
    }
    let soc = c
        .soc
        .optional()
        .map_err(|_| format!("{id}.soc: expected a string"))?;
    let Given(Some(Object(input))) = c.input else {
        return Err(format!("{id}: missing field `input`"));
    };
    let input = read_tensor(input, &format!("{id}.input"))?;
    let params = Value::Object(
        required(c.params, "params", &id)?
            .got()
            .ok_or_else(|| format!("{id}.params: expected an object"))?,
    );
    let Given(Some(Object(mut e))) = c.expect else {
        return Err(format!("{id}: missing field `expect`"));
    };
    let tensors = std::mem::take(&mut e.tensors);
    let expect = match e.error {
        Slot::Absent if tensors.present() => {
            let list = tensors
                .got()
                .ok_or_else(|| format!("{id}.expect.tensors: expected a list"))?;
            let mut outs = Vec::with_capacity(list.len());
            for (i, v) in list.into_iter().enumerate() {
                let ctx = format!("{id}.expect.tensors[{i}]");
                let f: TensorFields = serde_json::from_value(v)
                    .map_err(|_| format!("{ctx}: expected a tensor object"))?;
                outs.push(read_tensor(f, &ctx)?);
            }
            Expect::Outputs(outs)
        }
        Slot::Absent => Expect::Output(read_tensor(e, &format!("{id}.expect"))?),
        k => {
            let k = k
                .got()
                .ok_or_else(|| format!("{id}.expect.error: expected a string"))?;
            if !KINDS.contains(&k.as_str()) {
                return Err(format!(
                    "{id}.expect.error: unknown kind {k:?} (one of {})",
                    KINDS.join(", ")
                ));
            }
            Expect::Error(k)
        }
    };
    Ok(Case {
        id,
        op,
        soc,
        input,
        params,
        expect,
        origin: origin.to_string(),
    })
}

/// The walk over the given paths: every file once, by canonical path.
#[derive(Default)]
struct Walk {
    /// Canonical paths of the folders entered (a loop re-enters one).
    dirs: HashSet<PathBuf>,
    /// Canonical paths of the files taken.
    files: HashSet<PathBuf>,
    /// The files to read, as reached.
    out: Vec<PathBuf>,
    /// Paths that could not be read.
    bad: Vec<Malformed>,
}

impl Walk {
    fn cannot_read(&mut self, path: &Path, e: impl std::fmt::Display) {
        self.bad.push(Malformed {
            origin: path.display().to_string(),
            error: format!("cannot read: {e}"),
        });
    }

    /// `path` itself if a file (given by the user, or a `*.jsonl` found in a
    /// folder), or every `*.jsonl` file under it, recursively; symbolic links
    /// are followed, a folder or file already visited is not visited again.
    fn visit(&mut self, path: &Path, given: bool) {
        let meta = match std::fs::metadata(path) {
            Ok(m) => m,
            Err(e) => return self.cannot_read(path, e),
        };
        let canonical = match std::fs::canonicalize(path) {
            Ok(c) => c,
            Err(e) => return self.cannot_read(path, e),
        };
        if !meta.is_dir() {
            if !given && !meta.is_file() {
                return self.cannot_read(path, "not a regular file");
            }
            if self.files.insert(canonical) {
                self.out.push(path.to_path_buf());
            }
            return;
        }
        if !self.dirs.insert(canonical) {
            return;
        }
        let entries = match std::fs::read_dir(path) {
            Ok(rd) => rd,
            Err(e) => return self.cannot_read(path, e),
        };
        let mut found = Vec::new();
        for e in entries {
            match e {
                Ok(e) => found.push(e.path()),
                Err(e) => self.cannot_read(path, e),
            }
        }
        found.sort();
        for e in found {
            // `is_dir` follows symbolic links; a broken link named *.jsonl is
            // reported when read.
            if e.is_dir() || e.extension().is_some_and(|x| x == "jsonl") {
                self.visit(&e, false);
            }
        }
    }
}

/// The lines of a file's bytes: a leading UTF-8 byte-order mark dropped,
/// split at `\n`, surrounding whitespace (and so a trailing `\r`) dropped;
/// blank lines and comments (`//`, whatever bytes follow) skipped; each
/// other line decoded alone. Items are (line number, line).
fn lines(bytes: &[u8]) -> impl Iterator<Item = (usize, Result<&str, String>)> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    bytes
        .split(|&b| b == b'\n')
        .enumerate()
        .map(|(i, line)| (i + 1, line.trim_ascii()))
        .filter(|(_, line)| !line.is_empty() && !line.starts_with(b"//"))
        .map(|(i, line)| {
            let text = std::str::from_utf8(line).map_err(|e| {
                let at = e.valid_up_to();
                format!(
                    "not UTF-8: byte {:#04x} at column {} does not start a valid character",
                    line[at],
                    at + 1
                )
            });
            (i, text)
        })
}

/// Reads the lines of one file's bytes as cases, `name` standing for the
/// file in origins (`name:line`).
fn read_lines(name: &str, bytes: &[u8], cases: &mut Vec<Case>, bad: &mut Vec<Malformed>) {
    for (n, line) in lines(bytes) {
        let origin = format!("{name}:{n}");
        let t = match line {
            Ok(l) => l,
            Err(error) => {
                bad.push(Malformed { origin, error });
                continue;
            }
        };
        match parse_case(t, &origin) {
            Ok(c) => cases.push(c),
            Err(error) => bad.push(Malformed { origin, error }),
        }
    }
}

/// Reads every case of the given files and folders (every `*.jsonl` in a
/// folder, recursively; each file once, symbolic links followed, loops
/// not); blank lines and lines starting with `//` are skipped; a line that
/// cannot be read (not UTF-8, not JSON, not a case) is reported, not fatal.
pub fn load(paths: &[PathBuf]) -> (Vec<Case>, Vec<Malformed>) {
    let mut walk = Walk::default();
    for p in paths {
        walk.visit(p, true);
    }
    let (mut cases, mut bad) = (Vec::new(), walk.bad);
    for f in walk.out {
        match std::fs::read(&f) {
            Ok(bytes) => read_lines(&f.display().to_string(), &bytes, &mut cases, &mut bad),
            Err(e) => bad.push(Malformed {
                origin: f.display().to_string(),
                error: format!("cannot read: {e}"),
            }),
        }
    }
    (cases, bad)
}

/// The project's suite as it was when this program was built: every file
/// of `tests/cases/`, by its path there, and its text. A binary copied to
/// a host without the source tree runs it (`npu-ops conformance` with no
/// path).
pub const EMBEDDED: [(&str, &str); 2] = [
    (
        "tests/cases/generated.jsonl",
        include_str!("../../tests/cases/generated.jsonl"),
    ),
    (
        "tests/cases/seeds.jsonl",
        include_str!("../../tests/cases/seeds.jsonl"),
    ),
];

/// Reads the suite built into this program ([`EMBEDDED`]); origins name
/// the files as `tests/cases/<file>:<line>`.
pub fn load_embedded() -> (Vec<Case>, Vec<Malformed>) {
    let (mut cases, mut bad) = (Vec::new(), Vec::new());
    for (name, text) in EMBEDDED {
        read_lines(name, text.as_bytes(), &mut cases, &mut bad);
    }
    (cases, bad)
}

impl Case {
    /// The file the case was read from: its origin without `:line`.
    pub fn file(&self) -> &str {
        self.origin
            .rsplit_once(':')
            .map_or(self.origin.as_str(), |(f, _)| f)
    }
}

/// The elements of `shape`, refused (as the library refuses a tensor's
/// shape) beyond `i64::MAX`.
fn numel(shape: &[usize]) -> Result<usize, npu_ops::Error> {
    shape
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(d))
        .filter(|&n| n <= i64::MAX as usize)
        .ok_or_else(|| npu_ops::Error::InvalidArgument {
            op: "case",
            param: "shape",
            reason: format!("shape {shape:?} has too many elements"),
        })
}
