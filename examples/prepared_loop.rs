//! Prepared operators in a hot loop: a `PreparedSlice` and a
//! `PreparedIndexSelect` are planned once (aclnn's first phase, on a
//! repeatable executor), then run 10 000 times each with rotating inputs
//! and rotating preallocated outputs, as an inference loop reuses its
//! buffers. Each run only rebinds addresses and enqueues the second phase:
//! no planning, no descriptors, and no device allocation.
//!
//! The program checks every output slot against a host computation of the
//! run that last wrote it, asserts that `device_allocs` did not change over
//! the loops, and prints the time per run (host wall clock with
//! `std::time::Instant`, printed only: it depends on the machine). It then
//! runs both prepared operators on views of the prepared layouts over
//! larger storages (a bigger batch buffer, a bigger table), and shows that a
//! view of another layout is refused before anything is enqueued.
//!
//! ```sh
//! cargo run --example prepared_loop
//! cargo run --release --example prepared_loop   # for meaningful timings
//! ```
//!
//! Exit status: 0 when every result matched and the loops allocated no
//! device memory, non-zero otherwise.

use npu_ops::{Backend, DType, Runtime, Tensor};
use std::time::{Duration, Instant};

const RUNS: usize = 10_000;
/// Rotating input tensors and output slots.
const INPUTS: usize = 3;
const SLOTS: usize = 4;

/// The slice input `[ROWS, COLS]` and the slice along dim 1.
const ROWS: usize = 64;
const COLS: usize = 256;
const START: usize = 8;
const END: usize = 200;
const STEP: usize = 3;
const SLICED: usize = (END - START).div_ceil(STEP);

/// The gather: `N_IDS` rows of a `[VOCAB, DIM]` table.
const VOCAB: usize = 512;
const DIM: usize = 64;
const N_IDS: usize = 32;

fn same_bits(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}

/// `x[:, START..END:STEP]` of a row-major `[rows, COLS]` host matrix.
fn host_slice(x: &[f32]) -> Vec<f32> {
    x.chunks_exact(COLS)
        .take(ROWS)
        .flat_map(|row| row[START..END].iter().step_by(STEP).copied())
        .collect()
}

/// `table[ids]` of a row-major `[.., DIM]` host table.
fn host_gather(table: &[f32], ids: &[i32]) -> Vec<f32> {
    ids.iter()
        .flat_map(|&i| {
            table[i as usize * DIM..(i as usize + 1) * DIM]
                .iter()
                .copied()
        })
        .collect()
}

/// The last of the `RUNS` loop runs that wrote output `slot`.
fn last_run_into(slot: usize) -> usize {
    (0..RUNS)
        .rev()
        .find(|i| i % SLOTS == slot)
        .expect("RUNS >= SLOTS")
}

fn per_run(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6 / RUNS as f64
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let rt = Runtime::new(Backend::Simulator)?;
    let s = rt.stream()?;

    // Inputs (host copies kept for checking).
    let xs_host: Vec<Vec<f32>> = (0..INPUTS)
        .map(|k| (0..ROWS * COLS).map(|i| (k * 100_000 + i) as f32).collect())
        .collect();
    let xs = xs_host
        .iter()
        .map(|h| Tensor::from_slice(&s, &[ROWS, COLS], h))
        .collect::<Result<Vec<_>, _>>()?;
    let table_host: Vec<f32> = (0..VOCAB * DIM).map(|i| i as f32 * 0.25).collect();
    let table = Tensor::from_slice(&s, &[VOCAB, DIM], &table_host)?;
    let ids_host: Vec<Vec<i32>> = (0..INPUTS)
        .map(|k| {
            (0..N_IDS)
                .map(|j| ((j * 37 + k * 101 + 5) % VOCAB) as i32)
                .collect()
        })
        .collect();
    let ids = ids_host
        .iter()
        .map(|h| Tensor::from_slice(&s, &[N_IDS], h))
        .collect::<Result<Vec<_>, _>>()?;

    // Preallocated, rotating outputs.
    let slice_out = (0..SLOTS)
        .map(|_| Tensor::empty(&s, DType::F32, &[ROWS, SLICED]))
        .collect::<Result<Vec<_>, _>>()?;
    let gather_out = (0..SLOTS)
        .map(|_| Tensor::empty(&s, DType::F32, &[N_IDS, DIM]))
        .collect::<Result<Vec<_>, _>>()?;

    // Planned once.
    let (start, end, step) = (START as i64, END as i64, STEP as i64);
    let ps = s.prepare_slice(&xs[0], 1, start, end, step, &slice_out[0])?;
    let pg = s.prepare_index_select(&table, 0, &ids[0], &gather_out[0])?;

    // Warm-up: every slot once (the stream's workspace is sized here), with
    // other inputs than the loop's last run into it, so the final check
    // sees the loop's results, not these.
    for k in 0..SLOTS {
        let other = (last_run_into(k) + 1) % INPUTS;
        ps.run(&xs[other], &slice_out[k])?;
        pg.run(&table, &ids[other], &gather_out[k])?;
    }
    s.synchronize()?;
    let before = rt.memory_stats();

    // The hot loops: enqueue RUNS runs, then wait for them.
    let t0 = Instant::now();
    for i in 0..RUNS {
        ps.run(&xs[i % INPUTS], &slice_out[i % SLOTS])?;
    }
    let slice_enqueued = t0.elapsed();
    s.synchronize()?;
    let slice_total = t0.elapsed();

    let t0 = Instant::now();
    for i in 0..RUNS {
        pg.run(&table, &ids[i % INPUTS], &gather_out[i % SLOTS])?;
    }
    let gather_enqueued = t0.elapsed();
    s.synchronize()?;
    let gather_total = t0.elapsed();

    let after = rt.memory_stats();

    // Every slot holds the result of the last run into it.
    for k in 0..SLOTS {
        let i = last_run_into(k);
        assert!(
            same_bits(
                &slice_out[k].to_vec::<f32>()?,
                &host_slice(&xs_host[i % INPUTS])
            ),
            "slice slot {k} (last run {i}) differs from the host"
        );
        assert!(
            same_bits(
                &gather_out[k].to_vec::<f32>()?,
                &host_gather(&table_host, &ids_host[i % INPUTS])
            ),
            "index_select slot {k} (last run {i}) differs from the host"
        );
    }
    assert_eq!(
        after.device_allocs, before.device_allocs,
        "the prepared loops allocated device memory: {before:?} -> {after:?}"
    );

    // The same layouts over larger storages: a batch buffer with spare rows,
    // and a table with room to grow.
    let big_x_host: Vec<f32> = (0..(ROWS + 16) * COLS).map(|i| -(i as f32)).collect();
    let big_x = Tensor::from_slice(&s, &[ROWS + 16, COLS], &big_x_host)?;
    ps.run(&big_x.narrow(0, 0, ROWS)?, &slice_out[0])?;
    let big_table_host: Vec<f32> = (0..2 * VOCAB * DIM).map(|i| i as f32 + 0.5).collect();
    let big_table = Tensor::from_slice(&s, &[2 * VOCAB, DIM], &big_table_host)?;
    pg.run(&big_table.narrow(0, 0, VOCAB)?, &ids[1], &gather_out[0])?;
    assert!(
        same_bits(&slice_out[0].to_vec::<f32>()?, &host_slice(&big_x_host)),
        "the prepared slice over a larger storage differs from the host"
    );
    assert!(
        same_bits(
            &gather_out[0].to_vec::<f32>()?,
            &host_gather(&big_table_host, &ids_host[1])
        ),
        "the prepared index_select over a larger storage differs from the host"
    );

    // A view of another layout (a [ROWS, COLS] window of a wider matrix:
    // other strides) is refused before anything is enqueued.
    let wide = Tensor::zeros(&s, DType::F32, &[ROWS, 2 * COLS])?;
    let refused = match ps.run(&wide.narrow(1, 0, COLS)?, &slice_out[1]) {
        Ok(()) => panic!("a view of another layout ran the prepared slice"),
        Err(e) => e,
    };
    assert_eq!(refused.kind(), "invalid_argument", "{refused:?}");
    s.synchronize()?;

    println!(
        "prepared_loop: {RUNS} prepared slice runs ([{ROWS}, {COLS}] f32 -> [{ROWS}, {SLICED}]) \
         and {RUNS} prepared index_select runs ({N_IDS} of {VOCAB} rows, int32 ids), \
         {INPUTS} rotating inputs, {SLOTS} rotating outputs: all bit-exact"
    );
    println!(
        "  repeatable executors: slice {}, index_select {}",
        ps.is_repeatable(),
        pg.is_repeatable()
    );
    println!(
        "  slice:        {:.2} us/run to enqueue, {:.2} us/run including the device work",
        per_run(slice_enqueued),
        per_run(slice_total)
    );
    println!(
        "  index_select: {:.2} us/run to enqueue, {:.2} us/run including the device work",
        per_run(gather_enqueued),
        per_run(gather_total)
    );
    println!(
        "  device allocations during the loops: {} (constant at {}); {} cache hits",
        after.device_allocs - before.device_allocs,
        after.device_allocs,
        after.hits - before.hits
    );
    println!("  views of the prepared layouts over larger storages ran both prepared ops");
    println!(
        "  a view of another layout was refused ({}): {refused}",
        refused.kind()
    );
    Ok(())
}
