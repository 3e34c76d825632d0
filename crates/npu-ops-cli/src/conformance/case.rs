//! Reading case files (`spec/conformance-format.md`).

use npu_ops::DType;
use serde_json::Value;
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
    /// An error of this kind (`invalid_argument`, ...).
    Error(String),
}

/// One case.
#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    /// Unique name.
    pub id: String,
    /// `slice`, `index_select`, `as_strided`, `sampled_slice`, `subtensor`.
    pub op: String,
    /// The SoC to run as, if given.
    pub soc: Option<String>,
    /// The input.
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

const OPS: [&str; 5] = [
    "slice",
    "index_select",
    "as_strided",
    "sampled_slice",
    "subtensor",
];
const KINDS: [&str; 4] = [
    "invalid_argument",
    "unsupported_dtype",
    "unsupported_op",
    "index_out_of_range",
];

fn field<'a>(v: &'a Value, name: &str, ctx: &str) -> Result<&'a Value, String> {
    v.get(name)
        .ok_or_else(|| format!("{ctx}: missing field `{name}`"))
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

fn extents(v: &Value, ctx: &str) -> Result<Vec<usize>, String> {
    v.as_array()
        .ok_or_else(|| format!("{ctx}: expected a list of extents, got {v}"))?
        .iter()
        .map(|x| {
            x.as_u64()
                .map(|n| n as usize)
                .ok_or_else(|| format!("{ctx}: extent {x} is not a non-negative integer"))
        })
        .collect()
}

/// A float value: a number, or "nan", "inf", "-inf".
fn float(v: &Value, ctx: &str) -> Result<f64, String> {
    match v {
        Value::String(s) if s == "nan" => Ok(f64::NAN),
        Value::String(s) if s == "inf" => Ok(f64::INFINITY),
        Value::String(s) if s == "-inf" => Ok(f64::NEG_INFINITY),
        _ => v.as_f64().ok_or_else(|| {
            format!("{ctx}: expected a number or \"nan\"/\"inf\"/\"-inf\", got {v}")
        }),
    }
}

fn exact_int<T: TryFrom<i128>>(v: &Value, ctx: &str, dtype: DType) -> Result<T, String> {
    let i: Option<i128> = v
        .as_i64()
        .map(i128::from)
        .or_else(|| v.as_u64().map(i128::from))
        .or_else(|| {
            v.as_f64()
                .filter(|f| f.fract() == 0.0 && f.abs() < 1e30)
                .map(|f| f as i128)
        });
    i.and_then(|i| T::try_from(i).ok())
        .ok_or_else(|| format!("{ctx}: {v} is not a {dtype} value"))
}

/// The little-endian bytes of one element.
fn element(v: &Value, dtype: DType, ctx: &str, out: &mut Vec<u8>) -> Result<(), String> {
    let not_exact = |x: f64| format!("{ctx}: {x} is not exactly representable in {dtype}");
    match dtype {
        DType::Bool => match v {
            Value::Bool(b) => out.push(*b as u8),
            _ => match v.as_u64() {
                Some(b @ 0..=1) => out.push(b as u8),
                _ => return Err(format!("{ctx}: {v} is not a bool (true/false/0/1)")),
            },
        },
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
            let pair = v
                .as_array()
                .filter(|a| a.len() == 2)
                .ok_or_else(|| format!("{ctx}: a complex value is a [re, im] pair, got {v}"))?;
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

/// A tensor object (`dtype`, `shape`, `data`, optional `view`).
pub fn tensor(v: &Value, ctx: &str) -> Result<CaseTensor, String> {
    let name = field(v, "dtype", ctx)?
        .as_str()
        .ok_or_else(|| format!("{ctx}.dtype: expected a string"))?;
    let dtype =
        DType::from_name(name).ok_or_else(|| format!("{ctx}.dtype: unknown dtype {name:?}"))?;
    let shape = extents(field(v, "shape", ctx)?, &format!("{ctx}.shape"))?;
    let data = field(v, "data", ctx)?
        .as_array()
        .ok_or_else(|| format!("{ctx}.data: expected a list"))?;
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
    let view = match v.get("view") {
        None | Some(Value::Null) => None,
        Some(w) => {
            let vctx = format!("{ctx}.view");
            let s = extents(field(w, "shape", &vctx)?, &format!("{vctx}.shape"))?;
            let st = extents(field(w, "strides", &vctx)?, &format!("{vctx}.strides"))?;
            let off = field(w, "offset", &vctx)?
                .as_u64()
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

/// Reads one JSON line.
pub fn parse_case(line: &str, origin: &str) -> Result<Case, String> {
    let v: Value = serde_json::from_str(line).map_err(|e| format!("not JSON: {e}"))?;
    let id = field(&v, "id", "case")?
        .as_str()
        .ok_or("case.id: expected a string")?
        .to_string();
    let op = field(&v, "op", &id)?
        .as_str()
        .ok_or_else(|| format!("{id}.op: expected a string"))?
        .to_string();
    if !OPS.contains(&op.as_str()) {
        return Err(format!(
            "{id}.op: unknown operator {op:?} (one of {})",
            OPS.join(", ")
        ));
    }
    let soc = match v.get("soc") {
        None | Some(Value::Null) => None,
        Some(s) => Some(
            s.as_str()
                .ok_or_else(|| format!("{id}.soc: expected a string"))?
                .to_string(),
        ),
    };
    let input = tensor(field(&v, "input", &id)?, &format!("{id}.input"))?;
    let params = field(&v, "params", &id)?.clone();
    if !params.is_object() {
        return Err(format!("{id}.params: expected an object"));
    }
    let e = field(&v, "expect", &id)?;
    let expect = match e.get("error") {
        Some(k) => {
            let k = k
                .as_str()
                .ok_or_else(|| format!("{id}.expect.error: expected a string"))?;
            if !KINDS.contains(&k) {
                return Err(format!(
                    "{id}.expect.error: unknown kind {k:?} (one of {})",
                    KINDS.join(", ")
                ));
            }
            Expect::Error(k.to_string())
        }
        None => Expect::Output(tensor(e, &format!("{id}.expect"))?),
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
