//! The stress test: several threads, each with its own streams and streams
//! shared by all, issue a random mix of every operator on random views
//! (plain, `_into` with aliasing outputs, prepared), host transfers,
//! cross-stream chains, launches whose tensors are dropped at once, and
//! runtime churn; every result is checked against cpu-ref. At the end
//! nothing the simulator handed out may be live.
//!
//! ```sh
//! cargo run --release --example stress -- --seconds 300 --threads 8
//! cargo run --release --example stress -- --replay 0x1234abcd   # one case
//! ```
//!
//! Exit status: 0 no mismatch and no leak, 1 otherwise.

#[path = "../tests/support/oracle.rs"]
mod oracle;

use npu_ops::{Backend, Runtime, Stream, Tensor};
use oracle::{run_case, Rng, Source, Verdict};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The stress test of npu-ops on the embedded simulator.
#[derive(clap::Parser)]
struct Args {
    /// How long to run.
    #[arg(long, default_value_t = 5.0)]
    seconds: f64,
    /// Worker threads.
    #[arg(long, default_value_t = 4)]
    threads: usize,
    /// Seed of the threads' random streams (decimal or 0x-hex).
    #[arg(long, default_value = "0x5eed", value_parser = parse_u64)]
    seed: u64,
    /// Runs the one case whose generator state a mismatch reported.
    #[arg(long, value_parser = parse_u64)]
    replay: Option<u64>,
}

fn parse_u64(v: &str) -> Result<u64, String> {
    match v.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16),
        None => v.parse(),
    }
    .map_err(|e| e.to_string())
}

#[derive(Default)]
struct Counts {
    ops: AtomicU64,
    cases: AtomicU64,
    compared_data: AtomicU64,
    chains: AtomicU64,
    dropped: AtomicU64,
    churns: AtomicU64,
    mismatches: AtomicU64,
}

/// A slice on one stream, an index_select of its result on another after a
/// wait: the result against the reference composition.
fn chain(r: &mut Rng, a: &Stream, b: &Stream) -> Verdict {
    let n = r.range(1, 64) as usize;
    let v: Vec<i32> = (0..n).map(|_| r.next_u64() as i32).collect();
    let run = || -> npu_ops::Result<Vec<i32>> {
        let x = Tensor::from_slice(a, &[n], &v)?;
        let y = a.slice(&x, 0, 1, n as i64, 2)?; // odd positions
        b.wait_for(a)?;
        let m = y.numel();
        let idx: Vec<i64> = (0..m).rev().map(|i| i as i64).collect();
        let z = b.index_select_host(&y, 0, &idx)?;
        z.to_vec::<i32>()
    };
    let want: Vec<i32> = v.iter().skip(1).step_by(2).rev().copied().collect();
    match run() {
        Ok(g) if g == want => Verdict::Agree { data: true },
        Ok(g) => Verdict::Mismatch(format!("chain of {n}: got {g:?}, want {want:?}")),
        Err(e) => Verdict::Mismatch(format!("chain of {n}: {e}")),
    }
}

/// Launches whose tensors are all dropped before the work runs.
fn drop_burst(r: &mut Rng, s: &Stream) -> npu_ops::Result<()> {
    for _ in 0..r.range(1, 8) {
        let n = r.range(1, 4096) as usize;
        let x = Tensor::from_slice(s, &[n], &vec![7i32; n])?;
        let y = s.slice(&x, 0, 0, n as i64, 3)?;
        let _ = s.contiguous(&y.view(&[y.numel(), 2], &[1, 0], 0)?)?;
    }
    Ok(())
}

/// A runtime of its own, a case on it, and everything dropped.
fn churn(r: &mut Rng) -> Verdict {
    match Runtime::new(Backend::Simulator).and_then(|rt| rt.stream()) {
        Ok(s) => run_case(r, &s, true),
        Err(e) => Verdict::Mismatch(format!("runtime churn: {e}")),
    }
}

fn main() -> std::process::ExitCode {
    let a = <Args as clap::Parser>::parse();
    if a.threads == 0 || a.seconds.is_nan() || a.seconds < 0.0 {
        eprintln!("stress: --threads must be > 0 and --seconds >= 0");
        return std::process::ExitCode::from(2);
    }
    let rt = Runtime::new(Backend::Simulator).expect("simulator runtime");
    if let Some(state) = a.replay {
        let s = rt.stream().expect("stream");
        let v = run_case(&mut Rng(state), &s, true);
        println!("replay {state:#x}: {v:?}");
        return if matches!(v, Verdict::Agree { .. }) {
            0
        } else {
            1
        }
        .into_exit();
    }
    let shared: Vec<Stream> = (0..2).map(|_| rt.stream().expect("stream")).collect();
    let counts = Arc::new(Counts::default());
    let stop = Arc::new(AtomicBool::new(false));
    let first: Arc<Mutex<Vec<String>>> = Arc::default();
    let start = Instant::now();
    let threads: Vec<_> = (0..a.threads)
        .map(|t| {
            let (rt, shared, counts, stop, first) = (
                rt.clone(),
                shared.clone(),
                counts.clone(),
                stop.clone(),
                first.clone(),
            );
            let seed = a.seed ^ (t as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            std::thread::spawn(move || {
                let mut r = Rng(seed);
                let own: Vec<Stream> = (0..2).map(|_| rt.stream().expect("stream")).collect();
                while !stop.load(Ordering::Relaxed) {
                    let state = r.0;
                    let (what, verdict) = match r.below(20) {
                        0 => {
                            counts.chains.fetch_add(1, Ordering::Relaxed);
                            let b = if r.chance(1, 2) { &shared[0] } else { &own[1] };
                            ("chain", chain(&mut r, &own[0], b))
                        }
                        1 => {
                            counts.dropped.fetch_add(1, Ordering::Relaxed);
                            let s = &own[r.below(2) as usize];
                            match drop_burst(&mut r, s) {
                                Ok(()) => ("drops", Verdict::Agree { data: false }),
                                Err(e) => ("drops", Verdict::Mismatch(format!("drop burst: {e}"))),
                            }
                        }
                        2 => {
                            counts.churns.fetch_add(1, Ordering::Relaxed);
                            ("churn", churn(&mut r))
                        }
                        k => {
                            counts.cases.fetch_add(1, Ordering::Relaxed);
                            // Faults only on streams this thread owns.
                            let on_shared = k % 4 == 0;
                            let s = if on_shared {
                                &shared[r.below(2) as usize]
                            } else {
                                &own[r.below(2) as usize]
                            };
                            let replay_state = r.0;
                            let v = run_case(&mut r, s, !on_shared);
                            let v = match v {
                                Verdict::Mismatch(m) if !on_shared => Verdict::Mismatch(format!(
                                    "{m} (replay with --replay {replay_state:#x})"
                                )),
                                v => v,
                            };
                            ("case", v)
                        }
                    };
                    counts.ops.fetch_add(1, Ordering::Relaxed);
                    if let Verdict::Agree { data: true } = verdict {
                        counts.compared_data.fetch_add(1, Ordering::Relaxed);
                    }
                    if let Verdict::Mismatch(m) = verdict {
                        counts.mismatches.fetch_add(1, Ordering::Relaxed);
                        let mut f = first.lock().unwrap();
                        if f.len() < 10 {
                            f.push(format!("thread {t} {what} (state {state:#x}): {m}"));
                        }
                    }
                }
                for s in &own {
                    let _ = s.synchronize();
                }
            })
        })
        .collect();
    while start.elapsed().as_secs_f64() < a.seconds {
        std::thread::sleep(Duration::from_millis(50));
    }
    stop.store(true, Ordering::Relaxed);
    let mut panicked = 0;
    for t in threads {
        if t.join().is_err() {
            panicked += 1;
        }
    }
    for s in &shared {
        let _ = s.synchronize();
    }
    drop(shared);
    let secs = start.elapsed().as_secs_f64();
    let stats = npu_sim::stats();
    // The runtime itself holds nothing once its streams are gone.
    drop(rt);
    let after = npu_sim::stats();
    let c = &*counts;
    let ops = c.ops.load(Ordering::Relaxed);
    println!(
        "stress: {ops} operations in {secs:.1} s on {} threads ({:.0}/s): {} cases ({} compared data, the rest error kinds), {} chains, {} drop bursts, {} runtime churns",
        a.threads,
        ops as f64 / secs.max(1e-9),
        c.cases.load(Ordering::Relaxed),
        c.compared_data.load(Ordering::Relaxed),
        c.chains.load(Ordering::Relaxed),
        c.dropped.load(Ordering::Relaxed),
        c.churns.load(Ordering::Relaxed),
    );
    let mismatches = c.mismatches.load(Ordering::Relaxed);
    for m in first.lock().unwrap().iter() {
        println!("  mismatch: {m}");
    }
    println!(
        "stress: {mismatches} mismatches, {panicked} panicked threads; live after the run: {stats:?}"
    );
    let clean = after.is_clean();
    if !clean {
        println!("stress: LEAK: {after:?}");
    }
    if mismatches == 0 && panicked == 0 && clean {
        println!("stress: ok");
        0
    } else {
        1
    }
    .into_exit()
}

trait IntoExit {
    fn into_exit(self) -> std::process::ExitCode;
}

impl IntoExit for u8 {
    fn into_exit(self) -> std::process::ExitCode {
        std::process::ExitCode::from(self)
    }
}
