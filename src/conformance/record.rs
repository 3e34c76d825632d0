//! `--record DIR`: every case's observed outcome written back as case files
//! of the same format, so a run on real hardware becomes goldens that the
//! simulator replays.

use super::case::{Case, CaseTensor, Malformed};
use super::report::{Outcome, Report, Status};
use crate::dtype::{DType, Element};
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Write as _;
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
        /// One file's lines, and how many are cases and comments.
        #[derive(Default)]
        struct Body {
            lines: Vec<String>,
            cases: usize,
            comments: usize,
        }
        let mut bodies: BTreeMap<&str, Body> = BTreeMap::new();
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
            let body = bodies.entry(source).or_default();
            let line = match case.map(|c| case_line(c, o, &report.backend)) {
                Some(Ok(line)) => {
                    body.cases += 1;
                    line
                }
                Some(Err(why)) => {
                    body.comments += 1;
                    format!("// not recorded: {}: {}", one_line(&o.id), one_line(&why))
                }
                None => {
                    body.comments += 1;
                    format!(
                        "// not recorded: {}: {}",
                        one_line(&o.id),
                        one_line(&o.reason)
                    )
                }
            };
            body.lines.push(line);
        }
        // A source the plan did not meet (none should be) gets a name of
        // its own too: no outcome is dropped.
        let mut issued = self.issued.clone();
        let mut order: Vec<(&str, PathBuf)> = self
            .order
            .iter()
            .map(|s| (s.as_str(), self.target[s].clone()))
            .collect();
        for source in bodies.keys() {
            if !self.target.contains_key(*source) {
                order.push((source, self.dir.join(issue_name(source, &mut issued))));
            }
        }
        let mut done = Recorded::default();
        for (source, file) in order {
            let Some(body) = bodies.get(source) else {
                continue;
            };
            let mut text = format!(
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
            for l in &body.lines {
                text.push_str(l);
                text.push('\n');
            }
            replace_file(&self.dir, &file, text.as_bytes()).map_err(|error| {
                RecordError::Write {
                    file: file.clone(),
                    error,
                }
            })?;
            // Counted once written, not before.
            done.cases += body.cases;
            done.comments += body.comments;
            done.files.push(file);
        }
        Ok(done)
    }
}

/// Writes `file` (in `dir`) as `bytes`, never through what is there: the
/// bytes go to a new file of `dir` (created, never opened if it exists),
/// which then takes the name. A link of that name is replaced, not
/// followed; a folder of that name is an error.
fn replace_file(dir: &Path, file: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut b = tempfile::Builder::new();
    b.prefix(".npu-ops-record-").suffix(".tmp");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        // A golden as any file is made (the umask applies), not private.
        b.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let mut tmp = b.tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    tmp.persist(file).map_err(|e| e.error)?;
    Ok(())
}

/// Text made safe for a `//` comment line.
fn one_line(s: &str) -> String {
    s.replace(['\n', '\r'], " ")
}

/// The case line recording what `o` observed, or why it cannot be written.
fn case_line(c: &Case, o: &Outcome, backend: &str) -> Result<String, String> {
    if o.status == Status::Skipped {
        return Err(format!("skipped: {}", o.reason));
    }
    let expect = match o.observed.as_str() {
        "output" => match &o.output {
            Some(t) => tensor_json(t).map_err(|e| format!("the output {e}"))?,
            None => return Err("the output was not kept".into()),
        },
        k if KINDS.contains(&k) => json!({"error": k}),
        other => {
            return Err(format!(
                "observed {other}, which a case cannot expect: {}",
                o.reason
            ))
        }
    };
    let input = tensor_json(&c.input).map_err(|e| format!("the input {e}"))?;
    let mut line = serde_json::Map::new();
    line.insert("id".into(), json!(c.id));
    line.insert("op".into(), json!(c.op));
    if let Some(soc) = c.soc.as_ref().or(o.soc.as_ref()) {
        line.insert("soc".into(), json!(soc));
    }
    line.insert("input".into(), input);
    line.insert("params".into(), c.params.clone());
    line.insert("expect".into(), expect);
    let mut rec = serde_json::Map::new();
    rec.insert("backend".into(), json!(backend));
    if let Some(d) = o.device {
        rec.insert("device".into(), json!(d));
    }
    rec.insert("matched_expect".into(), json!(o.status == Status::Passed));
    line.insert("recorded".into(), Value::Object(rec));
    serde_json::to_string(&Value::Object(line)).map_err(|e| e.to_string())
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
    })
}

/// A tensor object (`dtype`, `shape`, `data`, and `view` if any) that reads
/// back to the same bytes.
fn tensor_json(t: &CaseTensor) -> Result<Value, String> {
    let es = t.dtype.size();
    let mut data = Vec::with_capacity(t.bytes.len() / es.max(1));
    for (i, b) in t.bytes.chunks_exact(es).enumerate() {
        data.push(element_json(t.dtype, b).ok_or_else(|| {
            format!(
                "element {i} is a NaN with payload {} that the format cannot write (\"nan\" reads as the default NaN)",
                super::report::format_element(t.dtype, b)
            )
        })?);
    }
    let mut v = json!({"dtype": t.dtype.name(), "shape": t.shape, "data": data});
    if let Some((shape, strides, offset)) = &t.view {
        v["view"] = json!({"shape": shape, "strides": strides, "offset": offset});
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

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
