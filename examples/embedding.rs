//! An embedding lookup: a `[vocab, dim]` f32 table on the device and a batch
//! of `u32` token ids, gathered with `index_select` along dim 0 in the two
//! ways a service has its ids:
//!
//! - as a device tensor of dtype `uint32` (`Stream::index_select`): for ids
//!   already on the device (the output of a sampling step); the `u32` index
//!   is read in place, with no conversion pass;
//! - as a host `&[u32]` (`Stream::index_select_host`): for ids fresh from a
//!   tokenizer; they are checked on the host, then uploaded once.
//!
//! Both are compared bit for bit with a gather on the host. Then an
//! out-of-range id shows how each form reports it as
//! `Error::IndexOutOfRange`: the host form before anything is enqueued (the
//! call itself fails), the device form when its result is read (the device
//! finds the bad id); the stream keeps working after both.
//!
//! ```sh
//! cargo run --example embedding
//! ```
//!
//! Exit status: 0 when every lookup matched and both errors came back as
//! expected, non-zero otherwise.

use npu_ops::{Backend, Error, Runtime, Tensor};

const VOCAB: usize = 4096;
const DIM: usize = 128;
const BATCH: usize = 64;

/// Row `v` of the table: distinct per token and column.
fn table_value(v: usize, d: usize) -> f32 {
    v as f32 + d as f32 / 1024.0
}

/// The host gather the device results must equal.
fn host_gather(table: &[f32], ids: &[u32]) -> Vec<f32> {
    let mut out = Vec::with_capacity(ids.len() * DIM);
    for &id in ids {
        let r = id as usize * DIM;
        out.extend_from_slice(&table[r..r + DIM]);
    }
    out
}

/// Bit-exact comparison of f32 slices.
fn same_bits(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let rt = Runtime::new(Backend::Simulator)?;
    let s = rt.stream()?;

    let host_table: Vec<f32> = (0..VOCAB * DIM)
        .map(|i| table_value(i / DIM, i % DIM))
        .collect();
    let table = Tensor::from_slice(&s, &[VOCAB, DIM], &host_table)?;

    // A batch with repeats and both ends of the vocabulary.
    let mut ids: Vec<u32> = (0..BATCH as u32)
        .map(|i| i.wrapping_mul(2_654_435_761) % VOCAB as u32)
        .collect();
    ids[0] = 0;
    ids[1] = VOCAB as u32 - 1;
    ids[2] = ids[5];
    let expected = host_gather(&host_table, &ids);

    // Ids on the device, as uint32.
    let ids_dev = Tensor::from_slice(&s, &[BATCH], &ids)?;
    let by_device = s.index_select(&table, 0, &ids_dev)?;
    // Ids on the host.
    let by_host = s.index_select_host(&table, 0, &ids)?;

    assert_eq!(by_device.shape(), [BATCH, DIM]);
    assert_eq!(by_host.shape(), [BATCH, DIM]);
    assert!(
        same_bits(&by_device.to_vec::<f32>()?, &expected),
        "the device-index gather differs from the host gather"
    );
    assert!(
        same_bits(&by_host.to_vec::<f32>()?, &expected),
        "the host-index gather differs from the host gather"
    );

    // An out-of-range id at position 3.
    let mut bad = ids.clone();
    bad[3] = VOCAB as u32 + 7;

    // Host ids: refused by the call itself, before anything is enqueued.
    let host_err = match s.index_select_host(&table, 0, &bad) {
        Ok(_) => panic!("an out-of-range host id was accepted"),
        Err(e) => e,
    };
    assert!(
        matches!(
            host_err,
            Error::IndexOutOfRange { position: 3, value, bound: VOCAB, .. }
                if value == VOCAB as i64 + 7
        ),
        "host form: unexpected error {host_err:?}"
    );
    // Nothing reached the device: the stream has no fault to report.
    s.synchronize()?;

    // Device ids: the call enqueues; the device finds the bad id, and the
    // result reports it when read.
    let bad_dev = Tensor::from_slice(&s, &[BATCH], &bad)?;
    let spoiled = s.index_select(&table, 0, &bad_dev)?;
    let device_err = match spoiled.to_vec::<f32>() {
        Ok(_) => panic!("a gather with an out-of-range device id read back as data"),
        Err(e) => e,
    };
    assert!(
        matches!(
            device_err,
            Error::IndexOutOfRange { position: 3, value, bound: VOCAB, .. }
                if value == VOCAB as i64 + 7
        ),
        "device form: unexpected error {device_err:?}"
    );
    // The faulted tensor keeps reporting it, however often it is read.
    assert_eq!(
        spoiled.wait().map_err(|e| e.kind().as_str()),
        Err("index_out_of_range")
    );
    // The stream's synchronisation reports the fault too, once (whoever saw
    // it first); work enqueued after that runs normally.
    let sync_report = match s.synchronize() {
        Ok(()) => panic!("Stream::synchronize did not report the device fault"),
        Err(e) => e,
    };
    assert_eq!(sync_report.kind(), "index_out_of_range", "{sync_report:?}");
    s.synchronize()?;
    let again = s.index_select(&table, 0, &ids_dev)?;
    assert!(
        same_bits(&again.to_vec::<f32>()?, &expected),
        "the lookup after the fault differs from the host gather"
    );

    println!(
        "embedding: table [{VOCAB}, {DIM}] f32, batch of {BATCH} u32 ids: device-index and \
         host-index gathers bit-exact with the host gather"
    );
    println!("  host ids, out of range  -> {host_err} (before anything was enqueued)");
    println!("  device ids, out of range -> {device_err} (when the result was read)");
    println!("  Stream::synchronize reported it once ({sync_report}); the next lookup matched");
    Ok(())
}
