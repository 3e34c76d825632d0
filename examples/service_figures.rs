//! The figures a service author asks about, measured on this machine with
//! the simulator: upload throughput (typed and raw, synchronous and
//! stream-ordered), how long a small result takes to read while unrelated
//! work is queued behind it on the same stream, and device allocations per
//! step of a KV-cache decode loop. Prints one table; asserts nothing about
//! time (a figure, not a test).
//!
//! `cargo run --release --example service_figures [-- MiB]` (default 64).

use half::bf16;
use npu_ops::{Backend, DType, PinnedBuffer, Runtime, Tensor};
use std::time::{Duration, Instant};

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
    Ok(())
}

/// The bytes of bf16 values (little-endian), built once outside the timing.
fn bytemuck_bytes(v: &[bf16]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_bits().to_le_bytes()).collect()
}
