//! Merging the reports of a run's shards (`npu-ops report merge`).

use super::{missing_ranges, ranges, InvalidReport, Report};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

/// Why reports cannot be merged.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    /// No report was given.
    #[error("no report to merge")]
    NoInput,
    /// A report file cannot be read.
    #[error("{}: cannot read: {error}", file.display())]
    Read {
        /// The file.
        file: PathBuf,
        /// Why.
        error: std::io::Error,
    },
    /// A report file is not a report this program can merge.
    #[error("{}: not a conformance report: {error}", file.display())]
    Invalid {
        /// The file.
        file: PathBuf,
        /// What is wrong.
        error: InvalidReport,
    },
    /// Two reports disagree on something every shard of one run shares.
    #[error("{} and {} are not shards of one run: {what} differs ({a} vs {b})", first.display(), second.display())]
    Different {
        /// What differs (`suite`, `backend`, `--filter`, ...).
        what: &'static str,
        /// The first report's value.
        a: String,
        /// The second report's.
        b: String,
        /// The first report.
        first: PathBuf,
        /// The second.
        second: PathBuf,
    },
    /// Two reports cover the same shard.
    #[error("{} and {} both cover shard {index}/{count}", first.display(), second.display())]
    ShardTwice {
        /// The shard.
        index: u32,
        /// Of how many.
        count: u32,
        /// The first report.
        first: PathBuf,
        /// The second.
        second: PathBuf,
    },
    /// A case id appears in two reports.
    #[error("case {id:?} is in both {} and {}", first.display(), second.display())]
    DuplicateCase {
        /// The id.
        id: String,
        /// The first report.
        first: PathBuf,
        /// The second.
        second: PathBuf,
    },
    /// A case (or unreadable line) is not in a shard its report covers:
    /// its id hashes to another shard.
    #[error("{}: case {id:?} belongs to shard {shard}/{count} (the hash of its id), but the report covers shard{} {}: not the outcome of a run of those shards", file.display(), if claimed.len() == 1 { "" } else { "s" }, ranges(claimed))]
    WrongShard {
        /// The report.
        file: PathBuf,
        /// The case id.
        id: String,
        /// The shard its id hashes to.
        shard: u32,
        /// Of how many.
        count: u32,
        /// The shards the report claims.
        claimed: Vec<u32>,
    },
    /// A shard a report covers does not hold the cases the report itself
    /// says the run selected for it.
    #[error("{}: shard {index}/{count} holds {have} case(s), but the report says the run selected {want} for it: the shard is not whole", file.display())]
    ShardCases {
        /// The report.
        file: PathBuf,
        /// The shard.
        index: u32,
        /// Of how many.
        count: u32,
        /// The outcomes of that shard in the report.
        have: usize,
        /// What the report says the run selected for it.
        want: usize,
    },
    /// A report's claims contradict themselves or its suite.
    #[error("{}: {problem}", file.display())]
    Claims {
        /// The report.
        file: PathBuf,
        /// The rule broken.
        problem: String,
    },
    /// Two outcomes have the same place in the suite.
    #[error("case {id:?} of {} and case {other:?} of {} both claim place {seq} of the suite", first.display(), second.display())]
    PlaceTwice {
        /// The place ([`Outcome::seq`](super::Outcome::seq)).
        seq: usize,
        /// The first outcome's id.
        id: String,
        /// The second's.
        other: String,
        /// The first report.
        first: PathBuf,
        /// The second.
        second: PathBuf,
    },
    /// Every shard is there, yet the outcomes are not the whole run's.
    #[error("the reports ({}) cover every shard but hold {have} outcome(s), and the run has {want} ({why}): not a whole run", files.iter().map(|f| f.display().to_string()).collect::<Vec<_>>().join(", "))]
    NotWhole {
        /// The reports.
        files: Vec<PathBuf>,
        /// The outcomes they hold.
        have: usize,
        /// The outcomes of the whole run.
        want: usize,
        /// Where `want` comes from.
        why: String,
    },
    /// Shards are missing (and `--partial` was not given).
    #[error("shard{} {} of {count} missing from {}: the totals would not be the suite's (pass --partial to merge what there is)", if matches!(missing[..], [(a, b)] if a == b) { "" } else { "s" }, missing_ranges(missing), files.iter().map(|f| f.display().to_string()).collect::<Vec<_>>().join(", "))]
    Missing {
        /// The reports given.
        files: Vec<PathBuf>,
        /// The shards missing, as ascending inclusive ranges
        /// ([`Coverage::missing`](super::Coverage::missing)).
        missing: Vec<(u32, u32)>,
        /// Of how many.
        count: u32,
    },
}

/// Reads a JSON report file.
pub fn read_report(file: &Path) -> Result<Report, MergeError> {
    let text = std::fs::read(file).map_err(|error| MergeError::Read {
        file: file.into(),
        error,
    })?;
    let text = String::from_utf8(text).map_err(|e| MergeError::Invalid {
        file: file.into(),
        error: InvalidReport::new("", format!("not UTF-8: {e}")),
    })?;
    Report::from_json(&text).map_err(|error| MergeError::Invalid {
        file: file.into(),
        error,
    })
}

/// The checks of one report's own claims (its cases against its shards,
/// its counts, its places in the suite); `place` collects the places of
/// every report's outcomes.
fn check_claims<'a>(
    file: &'a Path,
    r: &'a Report,
    place: &mut HashMap<usize, (&'a str, &'a Path)>,
) -> Result<(), MergeError> {
    let claims = |problem: String| MergeError::Claims {
        file: file.into(),
        problem,
    };
    let count = r.shards.count;
    let suite_total = r.suite.cases.saturating_add(r.suite.unreadable);
    let filter = r.filter.as_deref().filter(|f| !f.is_empty());
    let mut per_shard: BTreeMap<u32, usize> = BTreeMap::new();
    for o in &r.outcomes {
        let shard = super::super::shard::shard_of(&o.id, count);
        if r.shards.indices.binary_search(&shard).is_err() {
            return Err(MergeError::WrongShard {
                file: file.into(),
                id: o.id.clone(),
                shard,
                count,
                claimed: r.shards.indices.clone(),
            });
        }
        *per_shard.entry(shard).or_default() += 1;
        if o.seq >= suite_total {
            return Err(claims(format!(
                "case {:?} is at place {} of a suite of {} cases and {} unreadable lines",
                o.id, o.seq, r.suite.cases, r.suite.unreadable
            )));
        }
        let malformed = o.op == "(malformed)";
        if malformed != (o.seq < r.suite.unreadable) {
            return Err(claims(format!(
                "case {:?} is at place {}, but the suite's {} unreadable lines come first, then its cases",
                o.id, o.seq, r.suite.unreadable
            )));
        }
        if let Some(f) = filter {
            if !malformed && !o.id.contains(f) {
                return Err(claims(format!(
                    "case {:?} does not match the report's --filter {f:?}",
                    o.id
                )));
            }
        }
        if let Some((other, prev)) = place.insert(o.seq, (o.id.as_str(), file)) {
            return Err(MergeError::PlaceTwice {
                seq: o.seq,
                id: other.into(),
                other: o.id.clone(),
                first: prev.into(),
                second: file.into(),
            });
        }
    }
    match &r.shards.cases {
        Some(want) => {
            for (&index, &want) in r.shards.indices.iter().zip(want) {
                let have = per_shard.get(&index).copied().unwrap_or(0);
                if have != want {
                    return Err(MergeError::ShardCases {
                        file: file.into(),
                        index,
                        count,
                        have,
                        want,
                    });
                }
            }
        }
        None if r.shards.indices.len() > 1 => {
            return Err(claims(format!(
                "it claims shards {} of {count} but records no case count per shard (`shards.cases`): a run covers one shard, and a merge records the counts, so the claim cannot be checked",
                ranges(&r.shards.indices)
            )))
        }
        None => {}
    }
    if let Some(selected) = r.shards.selected {
        let claimed: usize = r.shards.cases.iter().flatten().sum();
        if claimed > selected {
            return Err(claims(format!(
                "its shards hold {claimed} selected cases, more than the {selected} it says the whole run selected"
            )));
        }
        if selected > suite_total || (filter.is_none() && selected != suite_total) {
            return Err(claims(format!(
                "it says the run selected {selected} cases of a suite of {} cases and {} unreadable lines{}",
                r.suite.cases,
                r.suite.unreadable,
                if filter.is_none() {
                    " with no --filter (every one is selected)"
                } else {
                    ""
                }
            )));
        }
    }
    Ok(())
}

/// Merges the reports of the shards of one run (`npu-ops report merge`):
/// they must be of the same suite (fingerprint and size), backend,
/// `--compare`, `--filter`, `--soc`, shard count and selection, cover
/// distinct shards and share no case id or place in the suite. Each
/// report's own claims are checked: every case belongs (by the hash of its
/// id) to a shard the report covers, each covered shard holds the cases the
/// run selected for it, a report of several shards says how many each
/// holds, and the places and the selection fit the suite. Unless
/// `partial`, all shards must be there and their outcomes must be the
/// whole run's (the selection, or with no `--filter` the whole suite). The
/// outcomes are put in suite order, so a merge of every shard reads as an
/// unsharded run (devices and SoCs are the union; `seconds` the longest).
pub fn merge(inputs: &[(PathBuf, Report)], partial: bool) -> Result<Report, MergeError> {
    let ((first_file, first), rest) = inputs.split_first().ok_or(MergeError::NoInput)?;
    let mut merged = first.clone();
    let mut shard_of: HashMap<u32, &Path> = HashMap::new();
    let mut id_of: HashMap<&str, &Path> = HashMap::new();
    let mut place: HashMap<usize, (&str, &Path)> = HashMap::new();
    let mut selected: Option<(usize, &Path)> = None;
    for (file, r) in inputs {
        let differ = |what: &'static str, a: String, b: String| {
            if a == b {
                Ok(())
            } else {
                Err(MergeError::Different {
                    what,
                    a,
                    b,
                    first: first_file.clone(),
                    second: file.clone(),
                })
            }
        };
        let opt = |o: &Option<String>| o.clone().unwrap_or_else(|| "none".into());
        differ(
            "suite",
            format!("fingerprint {}", first.suite.fingerprint),
            format!("fingerprint {}", r.suite.fingerprint),
        )?;
        differ(
            "suite",
            format!(
                "{} cases, {} unreadable lines",
                first.suite.cases, first.suite.unreadable
            ),
            format!(
                "{} cases, {} unreadable lines",
                r.suite.cases, r.suite.unreadable
            ),
        )?;
        differ("backend", first.backend.clone(), r.backend.clone())?;
        differ("--compare", opt(&first.compare), opt(&r.compare))?;
        differ("--filter", opt(&first.filter), opt(&r.filter))?;
        differ("--soc", first.default_soc.clone(), r.default_soc.clone())?;
        differ(
            "the shard count",
            first.shards.count.to_string(),
            r.shards.count.to_string(),
        )?;
        if let Some(n) = r.shards.selected {
            match selected {
                Some((m, prev)) if m != n => {
                    return Err(MergeError::Different {
                        what: "the cases the run selected",
                        a: m.to_string(),
                        b: n.to_string(),
                        first: prev.into(),
                        second: file.clone(),
                    })
                }
                _ => selected = Some((n, file)),
            }
        }
        for &i in &r.shards.indices {
            if let Some(prev) = shard_of.insert(i, file) {
                return Err(MergeError::ShardTwice {
                    index: i,
                    count: r.shards.count,
                    first: prev.into(),
                    second: file.clone(),
                });
            }
        }
        check_claims(file, r, &mut place)?;
        let mut own: BTreeSet<&str> = BTreeSet::new();
        for o in &r.outcomes {
            // Within one report an id may repeat (a duplicate id fails
            // there, next to the first case of that id).
            if own.insert(o.id.as_str()) {
                if let Some(prev) = id_of.insert(o.id.as_str(), file) {
                    return Err(MergeError::DuplicateCase {
                        id: o.id.clone(),
                        first: prev.into(),
                        second: file.clone(),
                    });
                }
            }
        }
    }
    let mut indices: Vec<u32> = shard_of.keys().copied().collect();
    indices.sort_unstable();
    // Each shard's count, when every report recorded them.
    let mut counts: HashMap<u32, usize> = HashMap::new();
    let mut all_counted = true;
    for (_, r) in inputs {
        match &r.shards.cases {
            Some(c) => counts.extend(r.shards.indices.iter().copied().zip(c.iter().copied())),
            None => all_counted = false,
        }
    }
    merged.shards.cases = all_counted.then(|| indices.iter().map(|i| counts[i]).collect());
    merged.shards.selected = selected.map(|(n, _)| n);
    merged.shards.indices = indices;
    if !partial && !merged.shards.complete() {
        return Err(MergeError::Missing {
            files: inputs.iter().map(|(f, _)| f.clone()).collect(),
            missing: merged.shards.missing(),
            count: merged.shards.count,
        });
    }
    if merged.shards.complete() {
        let have: usize = inputs.iter().map(|(_, r)| r.outcomes.len()).sum();
        let want = match (merged.shards.selected, first.filter.as_deref()) {
            (Some(n), _) => Some((n, "the cases the run selected".to_string())),
            (None, None | Some("")) => Some((
                first.suite.cases + first.suite.unreadable,
                format!(
                    "the suite's {} cases and {} unreadable lines",
                    first.suite.cases, first.suite.unreadable
                ),
            )),
            // An older report of a filtered run: what it selected is not
            // recorded.
            (None, Some(_)) => None,
        };
        if let Some((want, why)) = want {
            if have != want {
                return Err(MergeError::NotWhole {
                    files: inputs.iter().map(|(f, _)| f.clone()).collect(),
                    have,
                    want,
                    why,
                });
            }
        }
    }
    let mut socs: BTreeSet<&str> = BTreeSet::new();
    let mut devices: BTreeSet<u32> = BTreeSet::new();
    for (_, r) in inputs {
        socs.extend(r.soc.split(", ").filter(|s| !s.is_empty()));
        devices.extend(&r.devices);
    }
    merged.soc = socs.into_iter().collect::<Vec<_>>().join(", ");
    merged.devices = devices.into_iter().collect();
    merged.outcomes = rest
        .iter()
        .flat_map(|(_, r)| r.outcomes.iter().cloned())
        .chain(std::mem::take(&mut merged.outcomes))
        .collect();
    merged.outcomes.sort_by_key(|o| o.seq);
    merged.seconds = inputs.iter().map(|(_, r)| r.seconds).fold(0.0, f64::max);
    merged.timeout = inputs
        .iter()
        .filter_map(|(_, r)| r.timeout)
        .reduce(f64::max);
    Ok(merged)
}
