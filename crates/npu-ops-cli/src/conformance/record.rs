//! `--record DIR`: every case's observed outcome written back as case files
//! of the same format, so a run on real hardware becomes goldens that the
//! simulator replays.

use super::case::{Case, CaseTensor, Malformed};
use super::report::{Outcome, Report, Status};
use npu_ops::{DType, Element};
use serde_json::{json, Value};
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

/// What a recorded case line expects.
enum RecordedExpect<'a> {
    /// This output.
    Output(&'a CaseTensor),
    /// An error of this kind.
    Error(&'a str),
}

/// What the case line recording `o` expects, once its input and output
/// are known to be writable, or why it cannot be written.
fn recordable<'a>(c: &Case, o: &'a Outcome) -> Result<RecordedExpect<'a>, String> {
    if o.status == Status::Skipped {
        return Err(format!("skipped: {}", o.reason));
    }
    let expect = match o.observed.as_str() {
        "output" => match &o.output {
            Some(t) => {
                unwritable(t).map_or(Ok(()), |e| Err(format!("the output {e}")))?;
                RecordedExpect::Output(t)
            }
            None => return Err("the output was not kept".into()),
        },
        k if KINDS.contains(&k) => RecordedExpect::Error(k),
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

/// Writes the case line recording what `o` observed (`expect`, from
/// [`recordable`]) and its newline: the object serde_json would write
/// (its keys sorted), each tensor's data one element at a time.
fn write_case_line(
    w: &mut dyn std::io::Write,
    c: &Case,
    o: &Outcome,
    backend: &str,
    expect: RecordedExpect,
) -> std::io::Result<()> {
    let mut rec = serde_json::Map::new();
    rec.insert("backend".into(), json!(backend));
    if let Some(d) = o.device {
        rec.insert("device".into(), json!(d));
    }
    rec.insert("matched_expect".into(), json!(o.status == Status::Passed));
    w.write_all(b"{\"expect\":")?;
    match expect {
        RecordedExpect::Output(t) => write_tensor(w, t)?,
        RecordedExpect::Error(k) => serde_json::to_writer(&mut *w, &json!({ "error": k }))?,
    }
    w.write_all(b",\"id\":")?;
    serde_json::to_writer(&mut *w, &c.id)?;
    w.write_all(b",\"input\":")?;
    write_tensor(w, &c.input)?;
    w.write_all(b",\"op\":")?;
    serde_json::to_writer(&mut *w, &c.op)?;
    w.write_all(b",\"params\":")?;
    serde_json::to_writer(&mut *w, &c.params)?;
    w.write_all(b",\"recorded\":")?;
    serde_json::to_writer(&mut *w, &rec)?;
    if let Some(soc) = c.soc.as_ref().or(o.soc.as_ref()) {
        w.write_all(b",\"soc\":")?;
        serde_json::to_writer(&mut *w, soc)?;
    }
    w.write_all(b"}\n")
}

/// A float as the format writes it; `None` for a NaN that is not the
/// dtype's default quiet NaN (the format's `"nan"` reads as that one).
fn float_json(x: f64, default_nan: bool) -> Option<Value> {
    Some(if x.is_nan() {
        if !default_nan {
            return None;
        }
        json!("nan")
    } else if x == f64::INFINITY {
        json!("inf")
    } else if x == f64::NEG_INFINITY {
        json!("-inf")
    } else {
        json!(x)
    })
}

/// One element as the format writes it.
fn element_json(d: DType, b: &[u8]) -> Option<Value> {
    Some(match d {
        DType::F32 => {
            let x = f32::get(b);
            float_json(x as f64, x.to_bits() == (f64::NAN as f32).to_bits())?
        }
        DType::F64 => {
            let x = f64::get(b);
            float_json(x, x.to_bits() == f64::NAN.to_bits())?
        }
        DType::F16 => {
            let x = half::f16::get(b);
            float_json(
                x.to_f64(),
                x.to_bits() == half::f16::from_f64(f64::NAN).to_bits(),
            )?
        }
        DType::BF16 => {
            let x = half::bf16::get(b);
            float_json(
                x.to_f64(),
                x.to_bits() == half::bf16::from_f64(f64::NAN).to_bits(),
            )?
        }
        DType::C64 => {
            let h = d.size() / 2;
            json!([
                element_json(DType::F32, &b[..h])?,
                element_json(DType::F32, &b[h..])?
            ])
        }
        DType::C128 => {
            let h = d.size() / 2;
            json!([
                element_json(DType::F64, &b[..h])?,
                element_json(DType::F64, &b[h..])?
            ])
        }
        DType::Bool => json!(b[0] != 0),
        DType::I8 => json!(i8::get(b)),
        DType::U8 => json!(u8::get(b)),
        DType::I16 => json!(i16::get(b)),
        DType::U16 => json!(u16::get(b)),
        DType::I32 => json!(i32::get(b)),
        DType::U32 => json!(u32::get(b)),
        DType::I64 => json!(i64::get(b)),
        DType::U64 => json!(u64::get(b)),
        _ => return None, // a dtype the case format has no values of
    })
}

/// Why `t` cannot be written as a case tensor (the first element the
/// format cannot express), if it cannot.
fn unwritable(t: &CaseTensor) -> Option<String> {
    let es = t.dtype.size().max(1);
    t.bytes
        .chunks_exact(es)
        .position(|b| element_json(t.dtype, b).is_none())
        .map(|i| {
            format!(
                "element {i} is a NaN with payload {} that the format cannot write (\"nan\" reads as the default NaN)",
                super::report::format_element(t.dtype, &t.bytes[i * es..(i + 1) * es])
            )
        })
}

/// Writes `t` as a tensor object (`data`, `dtype`, `shape`, and `view` if
/// any; keys in serde_json's order) that reads back to the same bytes, one
/// element at a time. `t` must be writable ([`unwritable`]).
fn write_tensor(w: &mut dyn std::io::Write, t: &CaseTensor) -> std::io::Result<()> {
    let es = t.dtype.size().max(1);
    w.write_all(b"{\"data\":[")?;
    for (i, b) in t.bytes.chunks_exact(es).enumerate() {
        if i > 0 {
            w.write_all(b",")?;
        }
        let v = element_json(t.dtype, b).ok_or_else(|| {
            std::io::Error::other(format!("element {i} cannot be written (checked before)"))
        })?;
        serde_json::to_writer(&mut *w, &v)?;
    }
    w.write_all(b"],\"dtype\":")?;
    serde_json::to_writer(&mut *w, t.dtype.name())?;
    w.write_all(b",\"shape\":")?;
    serde_json::to_writer(&mut *w, &t.shape)?;
    if let Some((shape, strides, offset)) = &t.view {
        w.write_all(b",\"view\":")?;
        serde_json::to_writer(
            &mut *w,
            &json!({"shape": shape, "strides": strides, "offset": offset}),
        )?;
    }
    w.write_all(b"}")
}

#[cfg(test)]
mod tests {
    use super::*;

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
