//! Splitting a suite across hosts (`--shard I/N`) and naming a suite (the
//! fingerprint that lets shard reports be merged only with their own kind).
//!
//! A case belongs to shard `jump(fnv1a64(id), N) + 1`: Lamping and Veach's
//! jump consistent hash of the 64-bit FNV-1a hash of its `id`. The split
//! depends on nothing but the id and `N`, so it is the same on every run
//! and machine, adding or removing a case moves no other case, and going
//! from `N` to `N + 1` shards moves only about `1/(N + 1)` of the cases.
//! A line that cannot be read has no id; its `file:line` stands in.

use super::case::{Case, Expect};
use std::fmt;
use std::str::FromStr;

/// One shard of a split: `index` of `count`, numbered from 1
/// (`--shard 2/4` is the second of four), as CI matrices number their jobs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// Which shard, `1..=count`.
    pub index: u32,
    /// How many shards the suite is split into (at least 1).
    pub count: u32,
}

/// Why a `--shard` value was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ShardError {
    /// Not of the form `I/N`.
    #[error("{0:?} is not a shard: write I/N, e.g. 2/4 (the second of four shards)")]
    NotAFraction(String),
    /// `I` or `N` is not a whole number that fits 32 bits.
    #[error("{text:?}: {part:?} is not a whole number from 1 to 4294967295")]
    NotANumber {
        /// The whole value.
        text: String,
        /// The part that is not a number.
        part: String,
    },
    /// `N` is zero.
    #[error("{0:?}: the shard count must be at least 1")]
    ZeroCount(String),
    /// `I` is zero: shards are numbered from 1.
    #[error("{0:?}: shards are numbered from 1 (1/N is the first)")]
    ZeroIndex(String),
    /// `I` is greater than `N`.
    #[error(
        "{text:?}: shard {index} does not exist, there are {count} (1/{count} to {count}/{count})"
    )]
    IndexTooLarge {
        /// The whole value.
        text: String,
        /// `I`.
        index: u32,
        /// `N`.
        count: u32,
    },
}

impl FromStr for Shard {
    type Err = ShardError;

    fn from_str(text: &str) -> Result<Shard, ShardError> {
        let (i, n) = text
            .split_once('/')
            .ok_or_else(|| ShardError::NotAFraction(text.into()))?;
        let num = |part: &str| {
            // Only digits: no sign, no spaces, no `0x`.
            if part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) {
                return Err(ShardError::NotANumber {
                    text: text.into(),
                    part: part.into(),
                });
            }
            part.parse::<u32>().map_err(|_| ShardError::NotANumber {
                text: text.into(),
                part: part.into(),
            })
        };
        let (index, count) = (num(i)?, num(n)?);
        if count == 0 {
            return Err(ShardError::ZeroCount(text.into()));
        }
        if index == 0 {
            return Err(ShardError::ZeroIndex(text.into()));
        }
        if index > count {
            return Err(ShardError::IndexTooLarge {
                text: text.into(),
                index,
                count,
            });
        }
        Ok(Shard { index, count })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl Shard {
    /// Whether the case (or unreadable line) named `key` belongs to this
    /// shard.
    pub fn holds(&self, key: &str) -> bool {
        shard_of(key, self.count) == self.index
    }
}

/// The shard, `1..=count`, that `key` (a case id) belongs to among `count`
/// shards (`count` 0 is read as 1).
pub fn shard_of(key: &str, count: u32) -> u32 {
    jump(fnv1a(key.as_bytes()), count.max(1)) + 1
}

/// 64-bit FNV-1a.
pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// Jump consistent hash (Lamping and Veach, 2014): a bucket in
/// `0..buckets` for `key`. Only IEEE double multiplication and division,
/// which are exact-rounded everywhere, so the same on every machine.
fn jump(mut key: u64, buckets: u32) -> u32 {
    let (mut b, mut j): (i64, i64) = (-1, 0);
    while j < buckets as i64 {
        b = j;
        key = key.wrapping_mul(2_862_933_555_777_941_757).wrapping_add(1);
        j = ((b + 1) as f64 * ((1u64 << 31) as f64 / ((key >> 33) + 1) as f64)) as i64;
    }
    b as u32
}

/// A digest of length-prefixed fields, 8 bytes at a time (a fingerprint,
/// not a defence against crafted collisions).
struct Digest(u64);

impl Digest {
    fn word(&mut self, w: u64) {
        self.0 = (self.0 ^ w).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.0 ^= self.0 >> 29;
    }

    fn bytes(&mut self, b: &[u8]) {
        self.word(b.len() as u64);
        let mut chunks = b.chunks_exact(8);
        for c in &mut chunks {
            self.word(u64::from_le_bytes(c.try_into().expect("8 bytes")));
        }
        let mut last = [0u8; 8];
        last[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
        self.word(u64::from_le_bytes(last));
    }

    fn text(&mut self, s: &str) {
        self.bytes(s.as_bytes());
    }

    fn words(&mut self, ws: &[usize]) {
        self.word(ws.len() as u64);
        for &w in ws {
            self.word(w as u64);
        }
    }

    fn value(&mut self, v: &serde_json::Value) {
        use serde_json::Value;
        match v {
            Value::Null => self.word(1),
            Value::Bool(b) => self.word(2 + *b as u64),
            Value::Number(n) => {
                if let Some(i) = n.as_i64() {
                    self.word(4);
                    self.word(i as u64);
                } else if let Some(u) = n.as_u64() {
                    self.word(5);
                    self.word(u);
                } else {
                    self.word(6);
                    self.word(n.as_f64().unwrap_or(f64::NAN).to_bits());
                }
            }
            Value::String(s) => {
                self.word(7);
                self.text(s);
            }
            Value::Array(a) => {
                self.word(8);
                self.word(a.len() as u64);
                for x in a {
                    self.value(x);
                }
            }
            Value::Object(o) => {
                self.word(9);
                self.word(o.len() as u64);
                for (k, x) in o {
                    self.text(k);
                    self.value(x);
                }
            }
        }
    }
}

fn digest_tensor(d: &mut Digest, t: &super::CaseTensor) {
    d.text(t.dtype.name());
    d.words(&t.shape);
    d.bytes(&t.bytes);
    match &t.view {
        None => d.word(0),
        Some((shape, strides, offset)) => {
            d.word(1);
            d.words(shape);
            d.words(strides);
            d.word(*offset as u64);
        }
    }
}

/// A digest of what a case is (id, op, soc, input, params, expectation),
/// not where it was read from.
fn case_digest(c: &Case) -> u64 {
    let mut d = Digest(0xcbf2_9ce4_8422_2325);
    d.text(&c.id);
    d.text(&c.op);
    match &c.soc {
        None => d.word(0),
        Some(s) => {
            d.word(1);
            d.text(s);
        }
    }
    digest_tensor(&mut d, &c.input);
    d.value(&c.params);
    match &c.expect {
        Expect::Output(t) => {
            d.word(0);
            digest_tensor(&mut d, t)
        }
        Expect::Error(k) => {
            d.word(1);
            d.text(k)
        }
        Expect::Outputs(ts) => {
            d.word(2);
            d.word(ts.len() as u64);
            for t in ts {
                digest_tensor(&mut d, t)
            }
        }
    }
    d.0
}

/// The suite's fingerprint: 16 hex digits over the content of every case
/// (not where it was read from, nor the order of the files) and the number
/// of lines that could not be read. Two hosts reading the same suite get
/// the same fingerprint; shard reports merge only when it agrees.
pub fn fingerprint(cases: &[Case], unreadable: usize) -> String {
    let mut each: Vec<u64> = cases.iter().map(case_digest).collect();
    each.sort_unstable();
    let mut d = Digest(0xcbf2_9ce4_8422_2325);
    for h in each {
        d.word(h);
    }
    d.word(unreadable as u64);
    format!("{:016x}", d.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_parse_and_refuse() {
        assert_eq!("2/4".parse(), Ok(Shard { index: 2, count: 4 }));
        assert_eq!("1/1".parse(), Ok(Shard { index: 1, count: 1 }));
        for (bad, want) in [
            ("5/4", "does not exist"),
            ("0/4", "numbered from 1"),
            ("1/0", "at least 1"),
            ("0/0", "at least 1"),
            ("2", "not a shard"),
            ("", "not a shard"),
            ("a/4", "not a whole number"),
            ("1/4/2", "not a whole number"),
            (" 1/4", "not a whole number"),
            ("-1/4", "not a whole number"),
            ("+1/4", "not a whole number"),
            ("1/99999999999", "not a whole number"),
            ("/4", "not a whole number"),
        ] {
            let e = bad.parse::<Shard>().unwrap_err().to_string();
            assert!(e.contains(want), "{bad:?}: {e}");
        }
    }

    #[test]
    fn the_split_is_fixed_and_balanced() {
        // Pinned values: the split must not change between versions.
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(jump(0, 1), 0);
        let pinned: Vec<u32> = ["slice/a", "slice/b", "index_select/c", "x"]
            .iter()
            .map(|k| shard_of(k, 4))
            .collect();
        assert_eq!(pinned, PINNED);
        let ids: Vec<String> = (0..4000).map(|i| format!("op/case-{i}")).collect();
        for n in [1, 2, 3, 4, 7, 16] {
            let mut counts = vec![0usize; n as usize];
            for id in &ids {
                let s = shard_of(id, n);
                assert!((1..=n).contains(&s));
                counts[s as usize - 1] += 1;
            }
            let even = ids.len() / n as usize;
            for c in counts {
                assert!(c.abs_diff(even) < even / 5 + 20, "{n}: {c} vs {even}");
            }
        }
        // From 4 to 5 shards, a case either stays or moves to the new one.
        let moved = ids
            .iter()
            .filter(|id| {
                let (a, b) = (shard_of(id, 4), shard_of(id, 5));
                assert!(a == b || b == 5, "{id}: {a} -> {b}");
                a != b
            })
            .count();
        assert!(moved < ids.len() / 3, "{moved}");
    }

    const PINNED: [u32; 4] = [1, 2, 2, 4];
}
