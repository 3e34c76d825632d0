//! The stress test: several threads, each with its own streams and streams
//! shared by all, issue a random mix of every operator on random views
//! (plain, `_into` with aliasing outputs, prepared), host transfers,
//! cross-stream chains, launches whose tensors are dropped at once, and
//! runtime churn; every result is checked against cpu-ref. At the end
//! nothing the simulator handed out may be live.
//!
//! Faults are injected everywhere, shared streams included: random cases
//! index out of range on the device, and injectors launch work that surely
//! faults on a shared stream, then synchronise it (or not) from whichever
//! thread they run on. Several threads use each shared stream at once, so
//! one thread's fault spoils others' work: every read must then be the
//! reference's bytes or report a fault, never `Ok` with other bytes, and
//! the faulting work's own output must never read as `Ok`.
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
use oracle::{run_case, run_case_shared, Rng, Source, Verdict};
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
    /// Streams shared by every thread (each used by several at once).
    #[arg(long, default_value_t = 2)]
    shared: usize,
    /// Inject no fault on shared streams (cases there index in range).
    #[arg(long)]
    no_shared_faults: bool,
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
    /// Launches made to fault on a shared stream.
    injected: AtomicU64,
    /// Synchronisations of a shared stream that reported a fault.
    sync_faults: AtomicU64,
    /// Synchronisations of a shared stream by a thread that did not fault.
    shared_syncs: AtomicU64,
}

/// A launch on shared stream `s` that surely faults on the device (an
/// out-of-range index in a device index tensor), synchronised from this
/// thread or not: its output, read now or later, must report a fault.
fn inject_fault(r: &mut Rng, s: &Stream, c: &Counts) -> Verdict {
    let n = r.range(1, 256) as usize;
    let mut run = || -> npu_ops::Result<Verdict> {
        let x = Tensor::from_slice(s, &[n], &vec![3i32; n])?;
        let bad = [n as i64, -1, i64::MAX, i64::MIN][r.below(4) as usize];
        let mut idx: Vec<i64> = (0..r.range(1, 16))
            .map(|_| r.range(0, n as i64 - 1))
            .collect();
        let at = r.below(idx.len() as u64) as usize;
        idx[at] = bad;
        let i = Tensor::from_slice(s, &[idx.len()], &idx)?;
        let y = s.index_select(&x, 0, &i)?;
        c.injected.fetch_add(1, Ordering::Relaxed);
        if r.chance(1, 2) && s.synchronize().is_err() {
            c.sync_faults.fetch_add(1, Ordering::Relaxed);
        }
        Ok(match y.to_vec::<i32>() {
            Ok(v) => Verdict::Mismatch(format!(
                "injected fault: index {bad} at {at} of {} over {n} read as Ok: {v:?}",
                idx.len()
            )),
            Err(e) if e.is_device_fault() => Verdict::Agree { data: false },
            Err(e) => Verdict::Mismatch(format!("injected fault read as another error: {e}")),
        })
    };
    run().unwrap_or_else(|e| Verdict::Mismatch(format!("injected fault: {e}")))
}

/// A slice on one stream, an index_select of its result on another after a
/// wait: the result against the reference composition.
fn chain(r: &mut Rng, a: &Stream, b: &Stream, b_shared: bool) -> Verdict {
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
        // Another thread's fault on the shared stream spoiled the chain.
        Err(e) if b_shared && e.is_device_fault() => Verdict::Agree { data: false },
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
    if a.shared == 0 {
        eprintln!("stress: --shared must be > 0");
        return std::process::ExitCode::from(2);
    }
    let shared_faults = !a.no_shared_faults;
    let shared: Vec<Stream> = (0..a.shared)
        .map(|_| rt.stream().expect("stream"))
        .collect();
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
                    let pick = |r: &mut Rng| &shared[r.below(shared.len() as u64) as usize];
                    let (what, verdict) = match r.below(24) {
                        0 => {
                            counts.chains.fetch_add(1, Ordering::Relaxed);
                            let on_shared = r.chance(1, 2);
                            let b = if on_shared { pick(&mut r) } else { &own[1] };
                            ("chain", chain(&mut r, &own[0], b, on_shared))
                        }
                        20 | 21 if shared_faults => {
                            let s = pick(&mut r);
                            ("inject", inject_fault(&mut r, s, &counts))
                        }
                        22 | 23 => {
                            // Any thread synchronises a shared stream: it
                            // may take another thread's fault.
                            counts.shared_syncs.fetch_add(1, Ordering::Relaxed);
                            if pick(&mut r).synchronize().is_err() {
                                counts.sync_faults.fetch_add(1, Ordering::Relaxed);
                            }
                            ("sync", Verdict::Agree { data: false })
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
                            let on_shared = k % 4 == 0;
                            let s = if on_shared {
                                pick(&mut r)
                            } else {
                                &own[r.below(2) as usize]
                            };
                            let replay_state = r.0;
                            let v = if !on_shared {
                                run_case(&mut r, s, true)
                            } else if shared_faults {
                                // Faults from this case and from others.
                                run_case_shared(&mut r, s)
                            } else {
                                run_case(&mut r, s, false)
                            };
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
        "stress: {ops} operations in {secs:.1} s on {} threads, {} shared streams ({:.0}/s): {} cases ({} compared data, the rest error kinds or faults), {} chains, {} drop bursts, {} runtime churns",
        a.threads,
        a.shared,
        ops as f64 / secs.max(1e-9),
        c.cases.load(Ordering::Relaxed),
        c.compared_data.load(Ordering::Relaxed),
        c.chains.load(Ordering::Relaxed),
        c.dropped.load(Ordering::Relaxed),
        c.churns.load(Ordering::Relaxed),
    );
    println!(
        "stress: {} faults injected on shared streams, {} shared-stream synchronisations by other threads, {} synchronisations reported a fault",
        c.injected.load(Ordering::Relaxed),
        c.shared_syncs.load(Ordering::Relaxed),
        c.sync_faults.load(Ordering::Relaxed),
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
