//! Two streams as producer and consumer, ordered by events, with the host
//! synchronising only once, at the end.
//!
//! For each batch, the producer stream uploads the batch into a new device
//! tensor, slices the columns the model needs, and records an event after
//! that work. The consumer stream waits for that event on the device
//! (`Stream::wait_event`: the host does not block) and gathers rows of the
//! produced tensor with `index_select`. The host enqueues every batch
//! without waiting for any of them, then synchronises both streams, checks
//! every consumer result bit for bit against the same computation on the
//! host, and reports the producer's device time per batch measured with
//! `Event::elapsed` between events recorded around each batch's work.
//!
//! ```sh
//! cargo run --example streams
//! ```
//!
//! Exit status: 0 when every batch matched, non-zero otherwise.

use npu_ops::{Backend, DType, Runtime, Tensor};
use std::time::Duration;

const BATCHES: usize = 32;
const ROWS: usize = 128;
const COLS: usize = 96;
/// The producer keeps columns `START..END` every `STEP`.
const START: usize = 8;
const END: usize = 72;
const STEP: usize = 2;
const KEPT: usize = (END - START).div_ceil(STEP);

fn same_bits(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}

/// Batch `b`'s host data, `[ROWS, COLS]`.
fn batch(b: usize) -> Vec<f32> {
    (0..ROWS * COLS)
        .map(|i| (b * ROWS * COLS + i) as f32 * 0.5)
        .collect()
}

/// What the consumer must see for a batch: rows `rows` of the sliced batch.
fn expected(data: &[f32], rows: &[i64]) -> Vec<f32> {
    rows.iter()
        .flat_map(|&r| {
            let r = r as usize * COLS;
            data[r + START..r + END].iter().step_by(STEP).copied()
        })
        .collect()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let rt = Runtime::new(Backend::Simulator)?;
    let producer = rt.stream()?;
    let consumer = rt.stream()?;

    // The consumer's row selections (int64, on the device), made up front.
    let selections: Vec<Vec<i64>> = vec![
        (0..ROWS as i64).rev().step_by(3).collect(),
        (0..48).map(|i| (i * 53 + 7) % ROWS as i64).collect(),
    ];
    let index = selections
        .iter()
        .map(|v| Tensor::from_slice(&consumer, &[v.len()], v))
        .collect::<Result<Vec<_>, _>>()?;

    let mut host_batches = Vec::with_capacity(BATCHES);
    let mut results = Vec::with_capacity(BATCHES);
    let mut marks = Vec::with_capacity(BATCHES);
    let consumer_start = consumer.record()?;
    for b in 0..BATCHES {
        let data = batch(b);

        // Producer: upload, slice, and mark the batch as ready.
        let start = producer.record()?;
        let raw = Tensor::empty(&producer, DType::F32, &[ROWS, COLS])?;
        producer.upload(&raw, &data)?;
        let sliced = producer.slice(&raw, 1, START as i64, END as i64, STEP as i64)?;
        let ready = producer.record()?;

        // Consumer: wait for the batch on the device, then gather from it.
        consumer.wait_event(&ready)?;
        let out = consumer.index_select(&sliced, 0, &index[b % index.len()])?;

        // Every handle of `raw` and `sliced` may go now: the streams hold
        // what their queued work uses.
        host_batches.push(data);
        results.push(out);
        marks.push((start, ready));
    }
    let consumer_end = consumer.record()?;
    // The only host synchronisation.
    consumer.synchronize()?;
    producer.synchronize()?;

    for (b, out) in results.iter().enumerate() {
        let rows = &selections[b % selections.len()];
        assert_eq!(out.shape(), [rows.len(), KEPT], "batch {b}");
        assert!(
            same_bits(&out.to_vec::<f32>()?, &expected(&host_batches[b], rows)),
            "batch {b}: the consumer's result differs from the host"
        );
    }

    let mut producer_time = Duration::ZERO;
    for (b, (start, ready)) in marks.iter().enumerate() {
        assert!(ready.is_complete(), "batch {b}'s event is not complete");
        producer_time += start.elapsed(ready)?;
    }
    let producer_span = marks[0].0.elapsed(&marks[BATCHES - 1].1)?;
    let consumer_span = consumer_start.elapsed(&consumer_end)?;

    println!(
        "streams: {BATCHES} batches [{ROWS}, {COLS}] f32 uploaded and sliced to [{ROWS}, {KEPT}] \
         on the producer stream, gathered on the consumer stream after wait_event: all bit-exact"
    );
    println!(
        "  producer device time (Event::elapsed): {:.1} us/batch, {:.1} us in all; \
         first to last batch {:.1} us; consumer span {:.1} us",
        producer_time.as_secs_f64() * 1e6 / BATCHES as f64,
        producer_time.as_secs_f64() * 1e6,
        producer_span.as_secs_f64() * 1e6,
        consumer_span.as_secs_f64() * 1e6,
    );
    Ok(())
}
