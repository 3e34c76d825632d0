//! The launch figures' forms, N times each, for instruction counting under
//! `valgrind --tool=callgrind --separate-threads=yes` (wall-clock timings
//! are noisy on a shared machine; instructions per launch are not): run
//! with two counts and take the difference per launch, e.g.
//!
//! ```text
//! cargo build --release -p npu-ops-cli --example launch_cost
//! valgrind --tool=callgrind --separate-threads=yes target/release/examples/launch_cost prepared-sync 2000
//! ```
//!
//! Forms: `prepared-sync`, `raw-sync`, `oneshot-sync`, `fresh-sync` (each
//! launch followed by a synchronize), `prepared-pipe`, `raw-pipe`,
//! `oneshot-pipe` (all launches, then one synchronize). It prints the host
//! allocations per launch (every thread) of the timed loop.

use npu_ops::{Backend, Runtime};
use npu_ops_cli::bench::LaunchProbe;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

struct Counting;
static ON: AtomicBool = AtomicBool::new(false);
static N: AtomicU64 = AtomicU64::new(0);

// SAFETY: forwards to the system allocator, counting calls.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        if ON.load(Ordering::Relaxed) {
            N.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: the caller's contract.
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        // SAFETY: the caller's contract.
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        if ON.load(Ordering::Relaxed) {
            N.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: the caller's contract.
        unsafe { System.realloc(p, l, n) }
    }
}

#[global_allocator]
static A: Counting = Counting;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let form = args.next().unwrap_or_else(|| "prepared-sync".into());
    let n: usize = args.next().map_or(Ok(1000), |s| s.parse())?;
    let rt = Runtime::new(Backend::Simulator)?;
    let s = rt.stream()?;
    let probe = LaunchProbe::new(&s)?;
    let raw = probe.raw()?;
    let one = |sync: bool| -> Result<(), Box<dyn std::error::Error>> {
        match form.as_str() {
            "prepared-sync" | "prepared-pipe" => probe.prepared()?,
            "oneshot-sync" | "oneshot-pipe" => probe.oneshot()?,
            "fresh-sync" => probe.fresh()?,
            "raw-sync" | "raw-pipe" => raw.launch()?,
            f => return Err(format!("unknown form {f}").into()),
        }
        if sync {
            if form.starts_with("raw") {
                raw.synchronize()?;
            } else {
                s.synchronize()?;
            }
        }
        Ok(())
    };
    let sync_each = form.ends_with("-sync");
    for _ in 0..50 {
        one(sync_each)?;
    }
    s.synchronize()?;
    ON.store(true, Ordering::Relaxed);
    for _ in 0..n {
        one(sync_each)?;
    }
    s.synchronize()?;
    ON.store(false, Ordering::Relaxed);
    println!(
        "{form} x{n}: {:.2} host allocations per launch",
        N.load(Ordering::Relaxed) as f64 / n as f64
    );
    Ok(())
}
