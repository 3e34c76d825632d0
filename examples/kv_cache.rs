//! A decode loop over a bf16 KV cache, as an inference service runs it.
//!
//! The cache is one device tensor `[max_len, heads * head_dim]` of bf16.
//! Each decode step
//!
//! 1. writes the new token's K row into row `t` of the cache with
//!    `Stream::upload` on a `narrow` view (the `&[bf16]` row is copied once
//!    into pooled page-locked staging: no per-element conversion);
//! 2. gathers the attention window: the last `W` rows as a slice, and every
//!    other row of that window (newest first) as an `index_select` with
//!    `u32` cache positions;
//! 3. reads back one result (the strided gather), as sampling the next token
//!    would, and compares it bit for bit with a host mirror of the cache.
//!
//! After a short warm-up (the window fills up, the caching allocator and the
//! stream's workspace reach their steady state) the loop makes no device
//! allocation at all: every output and index tensor is a block the allocator
//! hands out again. The program asserts that and prints the allocator's
//! statistics.
//!
//! ```sh
//! cargo run --example kv_cache
//! ```
//!
//! Exit status: 0 when every step matched and the steady state allocated
//! nothing, non-zero otherwise.

use half::bf16;
use npu_ops::{Backend, DType, Runtime, Tensor};

/// Cache capacity in tokens.
const MAX_LEN: usize = 512;
const HEADS: usize = 8;
const HEAD_DIM: usize = 64;
const WIDTH: usize = HEADS * HEAD_DIM;
/// Attention window (rows).
const WINDOW: usize = 16;
/// Decode steps.
const STEPS: usize = 300;
/// Steps before the steady state is measured (the window is full after
/// `WINDOW` steps).
const WARM_UP: usize = 20;
/// How often the slice result is read back and checked too.
const CHECK_SLICE_EVERY: usize = 25;

/// The K row of token `t` (deterministic, distinct per token and column,
/// exactly representable in bf16).
fn k_row(t: usize, row: &mut [bf16]) {
    for (i, v) in row.iter_mut().enumerate() {
        // Small integers and halves: exact in bf16's 8-bit mantissa.
        let x = ((t * 7 + i * 3) % 251) as f32 * 0.5 - 60.0;
        *v = bf16::from_f32(x);
    }
}

/// Bit-exact comparison of bf16 slices (NaN-safe, -0.0 distinct from 0.0).
fn same_bits(a: &[bf16], b: &[bf16]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let rt = Runtime::new(Backend::Simulator)?;
    let s = rt.device(0)?.stream()?;

    let cache = Tensor::zeros(&s, DType::BF16, &[MAX_LEN, WIDTH])?;
    // The host's copy of what the cache should hold.
    let mut mirror = vec![bf16::ZERO; MAX_LEN * WIDTH];
    // Buffers reused by every step (the host side of the loop allocates
    // nothing per step either, apart from the read-back).
    let mut row = vec![bf16::ZERO; WIDTH];
    let mut positions: Vec<u32> = Vec::with_capacity(WINDOW);
    let mut expected: Vec<bf16> = Vec::with_capacity(WINDOW * WIDTH);

    let mut steady_start = None;
    let mut slice_checks = 0usize;
    for t in 0..STEPS {
        if t == WARM_UP {
            s.synchronize()?;
            steady_start = Some(rt.memory_stats());
        }

        // 1. The new token's K row, into row t of the cache.
        k_row(t, &mut row);
        s.upload(&cache.narrow(0, t, 1)?, &row)?;
        mirror[t * WIDTH..(t + 1) * WIDTH].copy_from_slice(&row);

        // 2. The attention window: rows [start, t] ...
        let start = (t + 1).saturating_sub(WINDOW);
        let window = s.slice(&cache, 0, start as i64, t as i64 + 1, 1)?;
        // ... and every other row of it, newest first, by cache position.
        positions.clear();
        positions.extend((start..=t).rev().step_by(2).map(|p| p as u32));
        let strided = s.index_select_host(&cache, 0, &positions)?;

        // 3. One read-back per step, checked bit for bit.
        let got = strided.to_vec::<bf16>()?;
        expected.clear();
        for &p in &positions {
            let p = p as usize;
            expected.extend_from_slice(&mirror[p * WIDTH..(p + 1) * WIDTH]);
        }
        assert!(
            same_bits(&got, &expected),
            "step {t}: the strided gather of positions {positions:?} differs from the host"
        );
        assert_eq!(strided.shape(), [positions.len(), WIDTH]);

        // The slice is checked now and then (and on the last step).
        if t % CHECK_SLICE_EVERY == 0 || t == STEPS - 1 {
            let got = window.to_vec::<bf16>()?;
            assert!(
                same_bits(&got, &mirror[start * WIDTH..(t + 1) * WIDTH]),
                "step {t}: the window slice [{start}, {t}] differs from the host"
            );
            slice_checks += 1;
        }
    }
    s.synchronize()?;

    // The whole cache, once, against the mirror.
    assert!(
        same_bits(&cache.to_vec::<bf16>()?, &mirror),
        "the final cache differs from the host mirror"
    );

    let before = steady_start.expect("STEPS > WARM_UP");
    let after = rt.memory_stats();
    let steady_steps = (STEPS - WARM_UP) as f64;
    let allocs = after.device_allocs - before.device_allocs;
    println!(
        "kv_cache: {STEPS} decode steps, cache [{MAX_LEN}, {WIDTH}] bf16, window {WINDOW} rows \
         (slice) + {} rows (u32 gather); every step bit-exact ({slice_checks} slice checks)",
        WINDOW.div_ceil(2)
    );
    println!(
        "  warm-up ({WARM_UP} steps): {} device allocations; steady state ({} steps): \
         {allocs} device allocations ({:.3}/step), {} cache hits ({:.1}/step), {} misses",
        before.device_allocs,
        STEPS - WARM_UP,
        allocs as f64 / steady_steps,
        after.hits - before.hits,
        (after.hits - before.hits) as f64 / steady_steps,
        after.misses - before.misses,
    );
    println!(
        "  memory: {} B in use, {} B cached, peak {} B",
        after.in_use, after.cached, after.peak_in_use
    );
    assert_eq!(
        after.device_allocs, before.device_allocs,
        "the steady state allocated device memory: {before:?} -> {after:?}"
    );
    assert_eq!(after.misses, before.misses, "{before:?} -> {after:?}");
    Ok(())
}
