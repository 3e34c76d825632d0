//! The figures a service author asks about, measured on this machine with
//! the simulator: upload throughput (typed and raw, synchronous and
//! stream-ordered), how long a small result takes to read while unrelated
//! work is queued behind it on the same stream, and device allocations per
//! step of a KV-cache decode loop; read-back (`to_vec` against `to_bytes`,
//! a stream-ordered download into a reused pinned buffer), a reused pinned
//! upload against `from_bytes`, and host allocations per step of a steady
//! upload/compute/download loop (a counting global allocator). Prints one
//! table; asserts nothing about time (a figure, not a test).
//!
//! `cargo run --release --example service_figures [-- MiB]` (default 64).

use half::bf16;
use npu_ops::{Backend, DType, PinnedBuffer, Runtime, Tensor};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Counts heap allocations: all threads' (the simulator's included), and
/// the calling thread's (the library's own, on the service's thread).
struct Counting;

static ALL_ALLOCS: AtomicU64 = AtomicU64::new(0);
thread_local! {
    static MY_ALLOCS: Cell<u64> = const { Cell::new(0) };
    /// While set, each allocation on this thread is attributed to the
    /// innermost crate on its stack (`npu_ops` or `npu_sim`).
    static ATTRIBUTE: Cell<bool> = const { Cell::new(false) };
    static BY_OPS: Cell<u64> = const { Cell::new(0) };
    static BY_SIM: Cell<u64> = const { Cell::new(0) };
}

fn note_alloc() {
    ALL_ALLOCS.fetch_add(1, Ordering::Relaxed);
    // `try_with`: a thread's locals may be gone while it exits.
    let _ = MY_ALLOCS.try_with(|c| c.set(c.get() + 1));
    if ATTRIBUTE.try_with(Cell::get).unwrap_or(false) {
        ATTRIBUTE.with(|a| a.set(false)); // the capture allocates
        let bt = std::backtrace::Backtrace::force_capture().to_string();
        let first = bt
            .lines()
            .find(|l| l.contains("npu_sim::") || l.contains("npu_ops::"));
        match first {
            Some(l) if l.contains("npu_sim::") => BY_SIM.with(|c| c.set(c.get() + 1)),
            _ => BY_OPS.with(|c| c.set(c.get() + 1)),
        }
        ATTRIBUTE.with(|a| a.set(true));
    }
}

// SAFETY: every call is forwarded to `System` with the caller's arguments
// unchanged (its contract is the caller's); counting allocates nothing.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note_alloc();
        // SAFETY: forwarded under the caller's contract.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note_alloc();
        // SAFETY: forwarded under the caller's contract.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note_alloc();
        // SAFETY: forwarded under the caller's contract.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded under the caller's contract.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

/// (this thread's, all threads') allocations so far.
fn allocs() -> (u64, u64) {
    (
        MY_ALLOCS.with(Cell::get),
        ALL_ALLOCS.load(Ordering::Relaxed),
    )
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn gbps(bytes: usize, d: Duration) -> f64 {
    bytes as f64 / d.as_secs_f64() / 1e9
}

fn main() -> npu_ops::Result<()> {
    let mib: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(64);
    let rt = Runtime::new(Backend::Simulator)?;
    let s = rt.stream()?;
    let n = mib << 19; // bf16 elements in `mib` MiB
    let bytes = n * 2;
    let host: Vec<bf16> = (0..n).map(|i| bf16::from_f32((i % 1000) as f32)).collect();
    let raw: Vec<u8> = bytemuck_bytes(&host);
    let runs = 5;
    let time = |f: &mut dyn FnMut() -> npu_ops::Result<()>| -> npu_ops::Result<Duration> {
        f()?; // warm: blocks cached, pages touched
        let mut v = Vec::new();
        for _ in 0..runs {
            let t = Instant::now();
            f()?;
            v.push(t.elapsed());
        }
        Ok(median(v))
    };
    println!("upload of {mib} MiB bf16 (median of {runs}):");
    let d = time(&mut || Tensor::from_slice(&s, &[n], &host).map(drop))?;
    println!(
        "  Tensor::from_slice (typed)        {:7.2} GB/s  {:8.2} ms",
        gbps(bytes, d),
        d.as_secs_f64() * 1e3
    );
    let d = time(&mut || Tensor::from_bytes(&s, DType::BF16, &[n], &raw).map(drop))?;
    println!(
        "  Tensor::from_bytes (raw)          {:7.2} GB/s  {:8.2} ms",
        gbps(bytes, d),
        d.as_secs_f64() * 1e3
    );
    let dst = Tensor::empty(&s, DType::BF16, &[n])?;
    let d = time(&mut || {
        s.upload(&dst, &host)?;
        s.synchronize()
    })?;
    println!(
        "  Stream::upload + sync (typed)     {:7.2} GB/s  {:8.2} ms",
        gbps(bytes, d),
        d.as_secs_f64() * 1e3
    );
    let d = time(&mut || {
        s.upload_bytes(&dst, &raw)?;
        s.synchronize()
    })?;
    println!(
        "  Stream::upload_bytes + sync (raw) {:7.2} GB/s  {:8.2} ms",
        gbps(bytes, d),
        d.as_secs_f64() * 1e3
    );
    let mut pinned = Some(PinnedBuffer::new(&rt, bytes)?);
    pinned
        .as_mut()
        .unwrap()
        .as_mut_slice()
        .copy_from_slice(&raw);
    let d = time(&mut || {
        // The buffer is the caller's: filled once, lent for each copy.
        let buf = pinned.take().unwrap();
        s.upload_pinned(&dst, buf)?;
        s.synchronize()?;
        pinned = Some(PinnedBuffer::new(&rt, bytes)?);
        Ok(())
    })?;
    println!("  Stream::upload_pinned + sync      {:7.2} GB/s  {:8.2} ms  (incl. a fresh pinned buffer per run)", gbps(bytes, d), d.as_secs_f64() * 1e3);
    // A reused pinned upload against `from_bytes`, in alternating blocks
    // (each a steady loop, under the same conditions): medians of 20 each.
    let mut lent = Some(PinnedBuffer::new(&rt, bytes)?);
    lent.as_mut().unwrap().as_mut_slice().copy_from_slice(&raw);
    let (mut fb, mut pl) = (Vec::new(), Vec::new());
    for _ in 0..4 {
        for i in 0..6 {
            let t = Instant::now();
            drop(Tensor::from_bytes(&s, DType::BF16, &[n], &raw)?);
            if i > 0 {
                fb.push(t.elapsed());
            }
        }
        for i in 0..6 {
            let t = Instant::now();
            // The same buffer each run: lent to the copy, given back after.
            let buf = lent.take().unwrap();
            lent = Some(s.upload_pinned_lend(&dst, buf)?.wait()?);
            if i > 0 {
                pl.push(t.elapsed());
            }
        }
    }
    let (d_from_bytes, d_pinned) = (median(fb), median(pl));
    println!(
        "  Stream::upload_pinned_lend + wait {:7.2} GB/s  {:8.2} ms  (one pinned buffer, reused; from_bytes {:.2} ms in alternating blocks)",
        gbps(bytes, d_pinned),
        d_pinned.as_secs_f64() * 1e3,
        d_from_bytes.as_secs_f64() * 1e3
    );
    assert_eq!(dst.to_bytes()?, raw);

    println!("read-back of a {mib} MiB bf16 result (median of {runs}):");
    let d_bytes = time(&mut || dst.to_bytes().map(drop))?;
    println!(
        "  Tensor::to_bytes                  {:7.2} GB/s  {:8.2} ms",
        gbps(bytes, d_bytes),
        d_bytes.as_secs_f64() * 1e3
    );
    let d_vec = time(&mut || dst.to_vec::<bf16>().map(drop))?;
    println!(
        "  Tensor::to_vec::<bf16>            {:7.2} GB/s  {:8.2} ms  ({:.2}x to_bytes)",
        gbps(bytes, d_vec),
        d_vec.as_secs_f64() * 1e3,
        d_vec.as_secs_f64() / d_bytes.as_secs_f64()
    );
    let mut back = Some(PinnedBuffer::new(&rt, bytes)?);
    let d = time(&mut || {
        let buf = back.take().unwrap();
        back = Some(s.download_pinned(&dst, buf)?.wait()?);
        Ok(())
    })?;
    println!(
        "  Stream::download_pinned + wait    {:7.2} GB/s  {:8.2} ms  (one pinned buffer, reused)",
        gbps(bytes, d),
        d.as_secs_f64() * 1e3
    );
    assert_eq!(back.as_ref().unwrap().as_slice(), &raw[..]);
    println!(
        "  targets: to_vec {:.2}x to_bytes (<= 1.2), reused pinned upload {:.2}x from_bytes' time (<= 1.0)",
        d_vec.as_secs_f64() / d_bytes.as_secs_f64(),
        d_pinned.as_secs_f64() / d_from_bytes.as_secs_f64()
    );
    drop(dst);

    // A 2-element result, then unrelated work queued behind it.
    let big = Tensor::zeros(&s, DType::F32, &[n / 2])?;
    let out = Tensor::empty(&s, DType::F32, &[n / 2])?;
    let x = Tensor::from_slice(&s, &[4], &[1f32, 2., 3., 4.])?;
    s.synchronize()?;
    let mut read = Vec::new();
    let mut all = Vec::new();
    for _ in 0..runs {
        let t0 = Instant::now();
        let small = s.slice(&x, 0, 1, 3, 1)?;
        for _ in 0..16 {
            s.slice_into(&big, 0, 0, (n / 2) as i64, 1, &out)?;
        }
        let v = small.to_vec::<f32>()?;
        read.push(t0.elapsed());
        assert_eq!(v, [2., 3.]);
        s.synchronize()?;
        all.push(t0.elapsed());
    }
    println!(
        "read of a 2-element result with 16 x {} MiB copies queued after it: {:.3} ms (the queue takes {:.1} ms)",
        mib,
        median(read).as_secs_f64() * 1e3,
        median(all).as_secs_f64() * 1e3
    );

    // KV-cache decode steps: allocations per step once warm.
    let (len, width) = (256usize, 1024usize);
    let cache = Tensor::zeros(&s, DType::BF16, &[len, width])?;
    let token: Vec<bf16> = (0..width).map(|i| bf16::from_f32(i as f32)).collect();
    let step = |t: usize| -> npu_ops::Result<Vec<bf16>> {
        s.upload(&cache.narrow(0, t % len, 1)?, &token)?;
        let lo = (t % len).saturating_sub(31);
        let w = s.slice(&cache, 0, lo as i64, (t % len + 1) as i64, 1)?;
        let ids: Vec<u32> = (0..w.shape()[0] as u32).rev().collect();
        s.index_select_host(&w, 0, &ids)?.to_vec::<bf16>()
    };
    for t in 0..50 {
        step(t)?;
    }
    let before = rt.memory_stats();
    let steps = 1000;
    let t0 = Instant::now();
    for t in 50..50 + steps {
        step(t)?;
    }
    let took = t0.elapsed();
    let after = rt.memory_stats();
    println!(
        "KV-cache decode loop, {steps} steps: {} device allocations ({:.3}/step), {} cache hits, {:.1} us/step",
        after.device_allocs - before.device_allocs,
        (after.device_allocs - before.device_allocs) as f64 / steps as f64,
        after.hits - before.hits,
        took.as_secs_f64() * 1e6 / steps as f64
    );

    // A steady service step: upload a request into a resident tensor, one
    // prepared operator, download the result; buffers reused throughout.
    let (rows, cols) = (64usize, 1024usize);
    let input = Tensor::empty(&s, DType::F32, &[rows, cols])?;
    let result = Tensor::empty(&s, DType::F32, &[rows, cols / 2])?;
    let op = s.prepare_slice(&input, 1, 0, cols as i64, 2, &result)?;
    let mut up = Some(PinnedBuffer::new(&rt, rows * cols * 4)?);
    let mut down = Some(PinnedBuffer::new(&rt, rows * cols * 2)?);
    let mut step = |i: usize| -> npu_ops::Result<()> {
        let mut buf = up.take().unwrap();
        buf.as_mut_slice()[..4].copy_from_slice(&(i as f32).to_le_bytes());
        let sent = s.upload_pinned_lend(&input, buf)?;
        op.run(&input, &result)?;
        let read = s.download_pinned(&result, down.take().unwrap())?;
        up = Some(sent.wait()?);
        let got = read.wait()?;
        assert_eq!(got.as_slice()[..4], (i as f32).to_le_bytes());
        down = Some(got);
        Ok(())
    };
    for i in 0..50 {
        step(i)?;
    }
    let steps = 1000;
    let (mine0, all0) = allocs();
    let t0 = Instant::now();
    for i in 50..50 + steps {
        step(i)?;
    }
    let took = t0.elapsed();
    let (mine1, all1) = allocs();
    // One more step, each allocation attributed to npu-ops or to the
    // simulator (the stand-in for the device driver).
    ATTRIBUTE.with(|a| a.set(true));
    step(50 + steps)?;
    ATTRIBUTE.with(|a| a.set(false));
    println!(
        "upload/compute/download loop ({rows}x{cols} f32 in, pinned buffers reused), {steps} steps: {:.2} host allocations/step on the service thread, {:.2}/step in the process; of one step's: {} by npu-ops, {} by the simulator (its queued copies); {:.1} us/step",
        (mine1 - mine0) as f64 / steps as f64,
        (all1 - all0) as f64 / steps as f64,
        BY_OPS.with(Cell::get),
        BY_SIM.with(Cell::get),
        took.as_secs_f64() * 1e6 / steps as f64
    );
    Ok(())
}

/// The bytes of bf16 values (little-endian), built once outside the timing.
fn bytemuck_bytes(v: &[bf16]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_bits().to_le_bytes()).collect()
}
