//! Graphs in the safe layer (`Stream::capture`, `Graph::replay`,
//! `Graph::update`): captured Slice and IndexSelect bit-exact against
//! cpu-ref, replays that see inputs overwritten in place, buffers kept
//! alive by the graph whatever the drop order, task group updates, and
//! faults during a replay that never read as `Ok`.

mod common;

use common::{assert_same, rt, stream, upload};
use npu_ops::{Backend, DType, Runtime, Tensor};

const SOC: &str = "Ascend910B3";

fn xs(seed: i64) -> Vec<f32> {
    (0..24)
        .map(|i| ((i * 7 + seed * 13) % 31) as f32 - 11.5)
        .collect()
}

fn reference(seed: i64) -> cpu_ref::Tensor {
    cpu_ref::Tensor::from_slice(&[4, 6], &xs(seed)).unwrap()
}

fn ref_index() -> cpu_ref::Tensor {
    cpu_ref::Tensor::from_slice(&[3], &[3i64, 0, 2]).unwrap()
}

#[test]
fn captured_slice_and_index_select_match_cpu_ref() {
    let s = stream();
    let x = upload(&s, &reference(1));
    let idx = upload(&s, &ref_index());
    let y1 = Tensor::empty(&s, DType::F32, &[4, 2]).unwrap();
    let y2 = Tensor::empty(&s, DType::F32, &[3, 6]).unwrap();
    let graph = s
        .capture(|c| {
            c.slice_into(&x, 1, 1, 5, 2, &y1)?;
            c.index_select_into(&x, 0, &idx, &y2)
        })
        .unwrap();
    let other = rt().stream().unwrap();
    for (i, on) in [&s, &other, &s].into_iter().enumerate() {
        graph.replay(on).unwrap();
        let what = format!("replay {i}");
        assert_same(
            &y1,
            &cpu_ref::slice(SOC, &reference(1), 1, 1, 5, 2).unwrap(),
            &what,
        );
        assert_same(
            &y2,
            &cpu_ref::index_select(SOC, &reference(1), 0, &ref_index()).unwrap(),
            &what,
        );
    }
}

#[test]
fn replays_see_inputs_overwritten_in_place() {
    let s = stream();
    let x = upload(&s, &reference(0));
    let y = Tensor::empty(&s, DType::F32, &[4, 2]).unwrap();
    let graph = s.capture(|c| c.slice_into(&x, 1, 2, 4, 1, &y)).unwrap();
    let writer = rt().stream().unwrap();
    for seed in 1..6 {
        // Another stream writes the input; the replay waits for it.
        writer.upload(&x, &xs(seed)).unwrap();
        graph.replay(&s).unwrap();
        assert_same(
            &y,
            &cpu_ref::slice(SOC, &reference(seed), 1, 2, 4, 1).unwrap(),
            "slice",
        );
    }
}

#[test]
fn the_graph_keeps_its_buffers_alive_whatever_the_drop_order() {
    let rt = Runtime::new(Backend::Simulator).unwrap();
    rt.set_memory_caching(false); // every free reaches the device: the memory checker sees it
    let s = rt.stream().unwrap();
    let x = upload(&s, &reference(2));
    let y = Tensor::empty(&s, DType::F32, &[4, 2]).unwrap();
    let y2 = y.clone();
    let graph = s
        .capture(|c| {
            // A temporary made inside the capture lives as long as the graph.
            let t = Tensor::empty(c, DType::F32, &[4, 6])?;
            c.copy(&t, &x)?;
            c.slice_into(&t, 1, 0, 2, 1, &y2)
        })
        .unwrap();
    drop(x); // the graph holds the input
    for _ in 0..4 {
        graph.replay(&s).unwrap();
    }
    drop(graph); // the queued replays hold the model and every buffer
    assert_same(
        &y,
        &cpu_ref::slice(SOC, &reference(2), 1, 0, 2, 1).unwrap(),
        "after drops",
    );
    s.synchronize().unwrap();
}

#[test]
fn task_group_updates_replace_the_launches() {
    let s = stream();
    let x = upload(&s, &reference(3));
    let x2 = upload(&s, &reference(4));
    let y = Tensor::empty(&s, DType::F32, &[4, 2]).unwrap();
    let z = Tensor::empty(&s, DType::F32, &[4, 2]).unwrap();
    let z2 = Tensor::empty(&s, DType::F32, &[4, 2]).unwrap();
    let mut group = None;
    let mut graph = s
        .capture(|c| {
            group = Some(c.task_group(|g| g.slice_into(&x, 1, 0, 2, 1, &y))?);
            c.slice_into(&x, 1, 4, 6, 1, &z)
        })
        .unwrap();
    let group = group.unwrap();
    graph.replay(&s).unwrap();
    assert_same(
        &y,
        &cpu_ref::slice(SOC, &reference(3), 1, 0, 2, 1).unwrap(),
        "before",
    );
    // New tensors and parameters, the same operator.
    graph
        .update(group, |u| u.slice_into(&x2, 1, 3, 5, 1, &z2))
        .unwrap();
    graph.replay(&s).unwrap();
    assert_same(
        &z2,
        &cpu_ref::slice(SOC, &reference(4), 1, 3, 5, 1).unwrap(),
        "updated",
    );
    assert_same(
        &z,
        &cpu_ref::slice(SOC, &reference(3), 1, 4, 6, 1).unwrap(),
        "outside the group",
    );
    // Another operator in its place is refused; the group is unchanged.
    let idx = upload(&s, &cpu_ref::Tensor::from_slice(&[2], &[1i64, 0]).unwrap());
    let e = graph
        .update(group, |u| u.index_select_into(&x, 1, &idx, &z2))
        .unwrap_err();
    assert!(
        e.to_string().contains("aclmdlRICaptureTaskUpdateEnd"),
        "{e}"
    );
    graph.replay(&s).unwrap();
    assert_same(
        &z2,
        &cpu_ref::slice(SOC, &reference(4), 1, 3, 5, 1).unwrap(),
        "unchanged",
    );
    // A task group outside a capture.
    assert!(s.task_group(|_| Ok(())).is_err());
}

#[test]
fn faults_during_a_replay_never_read_as_ok() {
    let s = stream();
    let x = upload(&s, &reference(5));
    let idx = upload(&s, &ref_index());
    let y = Tensor::empty(&s, DType::F32, &[3, 6]).unwrap();
    let graph = s.capture(|c| c.index_select_into(&x, 0, &idx, &y)).unwrap();
    graph.replay(&s).unwrap();
    y.to_vec::<f32>().unwrap();
    // An index out of range, found by the kernel during the replay.
    s.upload(&idx, &[1i64, 9, 0]).unwrap();
    graph.replay(&s).unwrap();
    let e = y.to_vec::<f32>().unwrap_err();
    assert!(e.is_device_fault(), "{e}");
    let _ = s.synchronize(); // the read took the fault already, or this does
                             // Fixed, the next replay is good again.
    s.upload(&idx, &[1i64, 2, 0]).unwrap();
    graph.replay(&s).unwrap();
    let want = cpu_ref::index_select(
        SOC,
        &reference(5),
        0,
        &cpu_ref::Tensor::from_slice(&[3], &[1i64, 2, 0]).unwrap(),
    )
    .unwrap();
    assert_same(&y, &want, "after the fault");
}

#[test]
fn reads_inside_a_capture_are_errors_not_hangs() {
    let s = stream();
    let x = upload(&s, &reference(6));
    let r = s.capture(|c| {
        let y = c.slice(&x, 1, 0, 2, 1)?;
        y.to_vec::<f32>().map(drop)
    });
    assert!(r.is_err());
    // The stream works after a failed capture.
    let y = s.slice(&x, 1, 0, 2, 1).unwrap();
    assert_same(
        &y,
        &cpu_ref::slice(SOC, &reference(6), 1, 0, 2, 1).unwrap(),
        "after",
    );
}
