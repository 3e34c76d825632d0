//! `--record DIR`: every case's observed outcome written back as case files
//! of the same format, so a run on real hardware becomes goldens that the
//! simulator replays.

use super::case::{Case, CaseTensor, Malformed};
use super::json_float;
use super::report::{Outcome, Report, Status};
use npu_ops::{DType, Element};
use serde::ser::{Error as _, SerializeSeq, Serializer};
use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

/// The error kinds a case file may expect (`conformance-format.md`).
const KINDS: [&str; 4] = [
    "invalid_argument",
    "unsupported_dtype",
    "unsupported_op",
    "index_out_of_range",
];

/// Why a recording cannot be made.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// The folder cannot be created.
    #[error("--record {}: cannot create the folder: {error}", dir.display())]
    CreateDir {
        /// The folder.
        dir: PathBuf,
        /// Why.
        error: std::io::Error,
    },
    /// A recorded file would replace a case file the run reads.
    #[error("--record {}: {} would replace the case file {source_file} that this run reads; record into another folder", dir.display(), file.display())]
    WouldOverwrite {
        /// The folder.
        dir: PathBuf,
        /// The file that would be written.
        file: PathBuf,
        /// The case file it is.
        source_file: String,
    },
    /// A file cannot be written.
    #[error("--record: cannot write {}: {error}", file.display())]
    Write {
        /// The file.
        file: PathBuf,
        /// Why.
        error: std::io::Error,
    },
}

/// What a recording wrote.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Recorded {
    /// The files written, in the order of their sources.
    pub files: Vec<PathBuf>,
    /// Cases written with their observed outcome as `expect`.
    pub cases: usize,
    /// Cases (and unreadable lines) written only as a `//` comment saying
    /// why: an outcome the format cannot express (a device fault, a
    /// timeout, a panic, a malformed case, a skipped case, a NaN with a
    /// payload other than the dtype's default).
    pub comments: usize,
}

/// Where each source file's recording goes: `DIR/<file name>` (with
/// `.jsonl` added if it lacks it; `-2`, `-3`, ... before the extension
/// when the name is already taken by another source of the run, whatever
/// its own name), checked before the run so that a bad folder fails before
/// any case runs. Names are unique by construction, also where the file
/// system ignores case, so no source's recording replaces another's.
#[derive(Clone, Debug)]
pub struct Recorder {
    dir: PathBuf,
    /// Source file (as origins name it) -> file to write.
    target: HashMap<String, PathBuf>,
    /// Source files in the order first met.
    order: Vec<String>,
    /// The names issued, lower-cased.
    issued: HashSet<String>,
}

fn source_of_origin(origin: &str) -> &str {
    origin.rsplit_once(':').map_or(origin, |(f, _)| f)
}

/// The file name recording `source`: its own name (`.jsonl` added if it
/// lacks it), else the first of `-2`, `-3`, ... not in `issued` (compared
/// without case), which it joins.
fn issue_name(source: &str, issued: &mut HashSet<String>) -> String {
    let name = Path::new(source)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .filter(|n| !n.is_empty() && n != "." && n != "..")
        .unwrap_or_else(|| "cases.jsonl".into());
    // A bare `.jsonl` has no extension to a reader of the folder.
    let stem = match name.strip_suffix(".jsonl").unwrap_or(&name) {
        "" => "cases",
        stem => stem,
    };
    let mut n = 1u64;
    loop {
        let candidate = if n == 1 {
            format!("{stem}.jsonl")
        } else {
            format!("{stem}-{n}.jsonl")
        };
        if issued.insert(candidate.to_lowercase()) {
            return candidate;
        }
        n += 1;
    }
}

impl Recorder {
    /// Plans the recording of `cases` and `malformed` lines into `dir`
    /// (created if missing). Fails if the folder cannot be created or a
    /// recorded file would replace a case file being read.
    pub fn new(
        dir: &Path,
        cases: &[Case],
        malformed: &[Malformed],
    ) -> Result<Recorder, RecordError> {
        std::fs::create_dir_all(dir).map_err(|error| RecordError::CreateDir {
            dir: dir.into(),
            error,
        })?;
        let mut order: Vec<String> = Vec::new();
        let mut seen: HashSet<&str> = HashSet::new();
        let sources = malformed
            .iter()
            .map(|m| source_of_origin(&m.origin))
            .chain(cases.iter().map(Case::file));
        for s in sources {
            if seen.insert(s) {
                order.push(s.to_string());
            }
        }
        // Never replace a file being read, whichever source it records (a
        // link to one included, though only the link would be replaced).
        let read: HashMap<PathBuf, &String> = order
            .iter()
            .filter_map(|s| Some((std::fs::canonicalize(s).ok()?, s)))
            .collect();
        let mut issued = HashSet::new();
        let mut target = HashMap::new();
        for s in &order {
            let file = dir.join(issue_name(s, &mut issued));
            if let Some(source) = std::fs::canonicalize(&file).ok().and_then(|a| read.get(&a)) {
                return Err(RecordError::WouldOverwrite {
                    dir: dir.into(),
                    file,
                    source_file: source.to_string(),
                });
            }
            target.insert(s.clone(), file);
        }
        Ok(Recorder {
            dir: dir.into(),
            target,
            order,
            issued,
        })
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Writes the recording of `report`, a run of `cases` (the outcomes
    /// must have kept their outputs: [`super::Options::keep_outputs`]).
    /// Every outcome of the report is written, in suite order, under its
    /// source file's name: a case as a case line whose `expect` is what
    /// was observed (its `soc` the one it ran as when it named none), any
    /// other outcome as a `//` comment saying why it could not be. Each
    /// file is written to a new file of the folder and renamed over its
    /// name: a symbolic link there is replaced, never written through. The
    /// counts are of what was written.
    pub fn write(&self, report: &Report, cases: &[Case]) -> Result<Recorded, RecordError> {
        // Each source's outcomes (by place in the report), in suite order.
        // The lines are written straight to the file, one element at a
        // time: a recording holds no copy of an output as text or as JSON
        // values (a case's 60 MB output once took gigabytes that way).
        let mut groups: BTreeMap<&str, Vec<(&Outcome, Option<&Case>)>> = BTreeMap::new();
        for o in &report.outcomes {
            let case = o
                .seq
                .checked_sub(report.suite.unreadable)
                .and_then(|i| cases.get(i))
                .filter(|c| c.id == o.id);
            let source = match case {
                Some(c) => c.file(),
                None => source_of_origin(&o.id),
            };
            groups.entry(source).or_default().push((o, case));
        }
        // A source the plan did not meet (none should be) gets a name of
        // its own too: no outcome is dropped.
        let mut issued = self.issued.clone();
        let mut order: Vec<(&str, PathBuf)> = self
            .order
            .iter()
            .map(|s| (s.as_str(), self.target[s].clone()))
            .collect();
        for source in groups.keys() {
            if !self.target.contains_key(*source) {
                order.push((source, self.dir.join(issue_name(source, &mut issued))));
            }
        }
        let mut done = Recorded::default();
        for (source, file) in order {
            let Some(outcomes) = groups.get(source) else {
                continue;
            };
            let header = format!(
                "// Recorded by `npu-ops conformance --record` from {}: backend {}, soc {}{}. Each `expect` is the outcome observed there.\n",
                one_line(source),
                report.backend,
                report.soc,
                if report.shards.count > 1 {
                    format!(
                        ", shard {} of {}",
                        report
                            .shards
                            .indices
                            .iter()
                            .map(u32::to_string)
                            .collect::<Vec<_>>()
                            .join(", "),
                        report.shards.count
                    )
                } else {
                    String::new()
                }
            );
            let (mut n_cases, mut n_comments) = (0, 0);
            replace_file(&self.dir, &file, |w| {
                w.write_all(header.as_bytes())?;
                for &(o, case) in outcomes {
                    match case.map(|c| (c, recordable(c, o))) {
                        Some((c, Ok(expect))) => {
                            write_case_line(w, c, o, &report.backend, expect)?;
                            n_cases += 1;
                        }
                        Some((_, Err(why))) => {
                            writeln!(
                                w,
                                "// not recorded: {}: {}",
                                one_line(&o.id),
                                one_line(&why)
                            )?;
                            n_comments += 1;
                        }
                        None => {
                            writeln!(
                                w,
                                "// not recorded: {}: {}",
                                one_line(&o.id),
                                one_line(&o.reason)
                            )?;
                            n_comments += 1;
                        }
                    }
                }
                Ok(())
            })
            .map_err(|error| RecordError::Write {
                file: file.clone(),
                error,
            })?;
            // Counted once written, not before.
            done.cases += n_cases;
            done.comments += n_comments;
            done.files.push(file);
        }
        Ok(done)
    }
}

/// Writes `file` (in `dir`) with what `fill` writes (buffered), never
/// through what is there: the bytes go to a new file of `dir` (created,
/// never opened if it exists), which then takes the name. A link of that
/// name is replaced, not followed; a folder of that name is an error.
fn replace_file(
    dir: &Path,
    file: &Path,
    fill: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let mut b = tempfile::Builder::new();
    b.prefix(".npu-ops-record-").suffix(".tmp");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        // A golden as any file is made (the umask applies), not private.
        b.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let tmp = b.tempfile_in(dir)?;
    let mut w = std::io::BufWriter::new(tmp);
    fill(&mut w)?;
    let tmp = w.into_inner().map_err(|e| e.into_error())?;
    tmp.as_file().sync_all()?;
    tmp.persist(file).map_err(|e| e.error)?;
    Ok(())
}

/// Text made safe for a `//` comment line.
fn one_line(s: &str) -> String {
    s.replace(['\n', '\r'], " ")
}

/// What a recorded case line expects: `expect` as the format writes it.
#[derive(Serialize)]
#[serde(untagged)]
enum RecordedExpect<'a> {
    /// This output.
    Output(TensorOut<'a>),
    /// These outputs (an operator that returns a tensor list).
    Outputs {
        /// The tensors, in order.
        tensors: Vec<TensorOut<'a>>,
    },
    /// An error of this kind.
    Error {
        /// The kind.
        error: &'a str,
    },
}

/// What the case line recording `o` expects, once its input and output
/// are known to be writable, or why it cannot be written.
fn recordable<'a>(c: &Case, o: &'a Outcome) -> Result<RecordedExpect<'a>, String> {
    if o.status == Status::Skipped {
        return Err(format!("skipped: {}", o.reason));
    }
    let expect = match o.observed.as_str() {
        "output" => match &o.output {
            Some(ts) => {
                for t in ts {
                    unwritable(t).map_or(Ok(()), |e| Err(format!("the output {e}")))?;
                }
                // The splits return a list, whatever its length.
                match ts.as_slice() {
                    [t] if !c.op.starts_with("split_") => RecordedExpect::Output(TensorOut::new(t)),
                    _ => RecordedExpect::Outputs {
                        tensors: ts.iter().map(TensorOut::new).collect(),
                    },
                }
            }
            None => return Err("the output was not kept".into()),
        },
        k if KINDS.contains(&k) => RecordedExpect::Error { error: k },
        other => {
            return Err(format!(
                "observed {other}, which a case cannot expect: {}",
                o.reason
            ))
        }
    };
    if let Some(e) = unwritable(&c.input) {
        return Err(format!("the input {e}"));
    }
    Ok(expect)
}

/// A recorded case line: the case with what was observed as `expect`,
/// and how it was recorded (fields in serde_json's map order, as the
/// recordings were first written).
#[derive(Serialize)]
struct CaseLine<'a> {
    expect: RecordedExpect<'a>,
    id: &'a str,
    input: TensorOut<'a>,
    op: &'a str,
    params: &'a Value,
    recorded: RecordedBy<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    soc: Option<&'a str>,
}

/// A recorded line's `recorded` object.
#[derive(Serialize)]
struct RecordedBy<'a> {
    backend: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    device: Option<u32>,
    matched_expect: bool,
}

/// Writes the case line recording what `o` observed (`expect`, from
/// [`recordable`]) and its newline, each tensor's data one element at a
/// time.
fn write_case_line(
    w: &mut dyn std::io::Write,
    c: &Case,
    o: &Outcome,
    backend: &str,
    expect: RecordedExpect,
) -> std::io::Result<()> {
    let line = CaseLine {
        expect,
        id: &c.id,
        input: TensorOut::new(&c.input),
        op: &c.op,
        params: &c.params,
        recorded: RecordedBy {
            backend,
            device: o.device,
            matched_expect: o.status == Status::Passed,
        },
        soc: c.soc.as_deref().or(o.soc.as_deref()),
    };
    serde_json::to_writer(&mut *w, &line)?;
    w.write_all(b"\n")
}

/// One element as the format writes it.
#[derive(Clone, Copy, Serialize)]
#[serde(untagged)]
enum Written {
    /// A float: a number, or `"nan"`, `"inf"`, `"-inf"`.
    Float(#[serde(serialize_with = "json_float::serialize")] f64),
    /// A complex value: `[re, im]`.
    Complex(
        #[serde(serialize_with = "json_float::serialize")] f64,
        #[serde(serialize_with = "json_float::serialize")] f64,
    ),
    /// A bool.
    Bool(bool),
    /// A signed integer.
    Int(i64),
    /// An unsigned integer.
    UInt(u64),
}

/// A float as the format writes it; `None` for a NaN that is not the
/// dtype's default quiet NaN (the format's `"nan"` reads as that one).
fn float(x: f64, default_nan: bool) -> Option<f64> {
    (!x.is_nan() || default_nan).then_some(x)
}

/// One element as the format writes it.
fn element(d: DType, b: &[u8]) -> Option<Written> {
    let part = |d: DType, b: &[u8]| match element(d, b)? {
        Written::Float(x) => Some(x),
        _ => None,
    };
    Some(match d {
        DType::F32 => {
            let x = f32::get(b);
            Written::Float(float(x as f64, x.to_bits() == (f64::NAN as f32).to_bits())?)
        }
        DType::F64 => {
            let x = f64::get(b);
            Written::Float(float(x, x.to_bits() == f64::NAN.to_bits())?)
        }
        DType::F16 => {
            let x = half::f16::get(b);
            Written::Float(float(
                x.to_f64(),
                x.to_bits() == half::f16::from_f64(f64::NAN).to_bits(),
            )?)
        }
        DType::BF16 => {
            let x = half::bf16::get(b);
            Written::Float(float(
                x.to_f64(),
                x.to_bits() == half::bf16::from_f64(f64::NAN).to_bits(),
            )?)
        }
        DType::C64 | DType::C128 => {
            let (h, part_dtype) = (
                d.size() / 2,
                if d == DType::C64 {
                    DType::F32
                } else {
                    DType::F64
                },
            );
            Written::Complex(part(part_dtype, &b[..h])?, part(part_dtype, &b[h..])?)
        }
        DType::Bool => Written::Bool(b[0] != 0),
        DType::I8 => Written::Int(i8::get(b).into()),
        DType::U8 => Written::UInt(u8::get(b).into()),
        DType::I16 => Written::Int(i16::get(b).into()),
        DType::U16 => Written::UInt(u16::get(b).into()),
        DType::I32 => Written::Int(i32::get(b).into()),
        DType::U32 => Written::UInt(u32::get(b).into()),
        DType::I64 => Written::Int(i64::get(b)),
        DType::U64 => Written::UInt(u64::get(b)),
        _ => return None, // a dtype the case format has no values of
    })
}

/// Why `t` cannot be written as a case tensor (the first element the
/// format cannot express), if it cannot.
fn unwritable(t: &CaseTensor) -> Option<String> {
    let es = t.dtype.size().max(1);
    t.bytes
        .chunks_exact(es)
        .position(|b| element(t.dtype, b).is_none())
        .map(|i| {
            format!(
                "element {i} is a NaN with payload {} that the format cannot write (\"nan\" reads as the default NaN)",
                super::report::format_element(t.dtype, &t.bytes[i * es..(i + 1) * es])
            )
        })
}

/// A tensor object as the format writes it (`data`, `dtype`, `shape`, and
/// `view` if any; fields in serde_json's map order), reading back to the
/// same bytes. Its tensor must be writable ([`unwritable`]).
#[derive(Serialize)]
struct TensorOut<'a> {
    data: DataOut<'a>,
    dtype: &'static str,
    shape: &'a [usize],
    #[serde(skip_serializing_if = "Option::is_none")]
    view: Option<ViewOut<'a>>,
}

impl<'a> TensorOut<'a> {
    fn new(t: &'a CaseTensor) -> TensorOut<'a> {
        TensorOut {
            data: DataOut(t),
            dtype: t.dtype.name(),
            shape: &t.shape,
            view: t.view.as_ref().map(|(shape, strides, offset)| ViewOut {
                offset: *offset,
                shape,
                strides,
            }),
        }
    }
}

/// `input.view` as the format writes it.
#[derive(Serialize)]
struct ViewOut<'a> {
    offset: usize,
    shape: &'a [usize],
    strides: &'a [usize],
}

/// A tensor's `data`, written one element at a time (no copy of the
/// output as text or JSON values: a case's 60 MB output once took
/// gigabytes that way).
struct DataOut<'a>(&'a CaseTensor);

impl Serialize for DataOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let t = self.0;
        let es = t.dtype.size().max(1);
        let mut seq = s.serialize_seq(Some(t.bytes.len() / es))?;
        for (i, b) in t.bytes.chunks_exact(es).enumerate() {
            let x = element(t.dtype, b).ok_or_else(|| {
                S::Error::custom(format!("element {i} cannot be written (checked before)"))
            })?;
            seq.serialize_element(&x)?;
        }
        seq.end()
    }
}

/// Writes `t` as a tensor object ([`TensorOut`]).
#[cfg(test)]
fn write_tensor(w: &mut dyn std::io::Write, t: &CaseTensor) -> std::io::Result<()> {
    Ok(serde_json::to_writer(w, &TensorOut::new(t))?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The tensor object [`write_tensor`] writes, read as JSON.
    fn tensor_json(t: &CaseTensor) -> Result<Value, String> {
        if let Some(e) = unwritable(t) {
            return Err(e);
        }
        let mut text = Vec::new();
        write_tensor(&mut text, t).unwrap();
        Ok(serde_json::from_slice(&text).unwrap())
    }

    #[test]
    fn issued_names_are_unique_whatever_the_sources_are_named() {
        let sources = [
            "d1/a.jsonl",
            "d2/a.jsonl",
            "d3/a-2.jsonl",
            "d4/a-2-2.jsonl",
            "d5/a",
            "d6/A.jsonl",
            "d7/a-2",
            "d8/a.jsonl.jsonl",
            "d9/a.jsonl",
            "d10/.jsonl",
            "d11/cases.jsonl",
            "..",
            "/",
            "",
        ];
        let mut issued = HashSet::new();
        let mut names = HashSet::new();
        for s in sources {
            let n = issue_name(s, &mut issued);
            assert!(
                Path::new(&n).extension().is_some_and(|e| e == "jsonl") && !n.contains('/'),
                "{s}: {n}"
            );
            assert!(names.insert(n.to_lowercase()), "{s}: {n} issued twice");
        }
        assert_eq!(issued.len(), sources.len());
    }

    #[test]
    fn every_dtype_writes_back_to_its_bytes() {
        for d in DType::ALL {
            let es = d.size();
            let patterns: &[u8] = if d == DType::Bool {
                &[0, 1]
            } else {
                &[0, 1, 0x3c, 0x7f, 0x80, 0xff]
            };
            for &fill in patterns {
                let bytes = vec![fill; es];
                let t = CaseTensor {
                    dtype: d,
                    shape: vec![1],
                    bytes: bytes.clone(),
                    view: None,
                };
                match tensor_json(&t) {
                    Ok(v) => {
                        let back = crate::conformance::case::tensor(&v, "t").unwrap();
                        assert_eq!(back.bytes, bytes, "{d}: {v}");
                    }
                    // Only NaNs with payloads cannot be written.
                    Err(e) => assert!(e.contains("NaN with payload"), "{d} {fill:#x}: {e}"),
                }
            }
        }
        let nan = CaseTensor {
            dtype: DType::F32,
            shape: vec![2],
            bytes: [f32::NAN.to_le_bytes(), (-0.0f32).to_le_bytes()].concat(),
            view: None,
        };
        let v = tensor_json(&nan).unwrap();
        assert_eq!(v["data"], json!(["nan", -0.0]));
    }
}
