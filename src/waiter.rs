//! Async waits on events (feature `async`): one process-wide waiter thread
//! polls the pending events and wakes their futures; no runtime crate is
//! needed, and no executor thread blocks.

use crate::event::{Event, EventInner};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

struct Pending {
    event: Arc<EventInner>,
    state: Arc<Mutex<Slot>>,
}

#[derive(Default)]
struct Slot {
    done: bool,
    waker: Option<Waker>,
}

struct Waiter {
    queue: Mutex<Vec<Pending>>,
    more: Condvar,
}

fn waiter() -> &'static Waiter {
    static W: OnceLock<Waiter> = OnceLock::new();
    W.get_or_init(|| {
        std::thread::Builder::new()
            .name("npu-ops-event-waiter".into())
            .spawn(run)
            .expect("spawn the event waiter thread");
        Waiter {
            queue: Mutex::new(Vec::new()),
            more: Condvar::new(),
        }
    })
}

fn run() {
    let w = waiter();
    let mut idle_polls = 0u32;
    loop {
        let mut q = w.queue.lock().unwrap_or_else(|e| e.into_inner());
        while q.is_empty() {
            idle_polls = 0;
            q = w.more.wait(q).unwrap_or_else(|e| e.into_inner());
        }
        let mut wake = Vec::new();
        q.retain(|p| {
            if !Event::poll_complete(&p.event) {
                return true;
            }
            let mut s = p.state.lock().unwrap_or_else(|e| e.into_inner());
            s.done = true;
            wake.extend(s.waker.take());
            false
        });
        drop(q);
        // Woken with no lock held: an executor may poll inside `wake`.
        let any = !wake.is_empty();
        wake.into_iter().for_each(Waker::wake);
        // Back off while nothing completes: 20 us, doubling to 1 ms.
        idle_polls = if any { 0 } else { (idle_polls + 1).min(6) };
        std::thread::sleep(Duration::from_micros(20 << idle_polls.min(6)));
    }
}

impl Event {
    /// Waits for the event without blocking the calling thread: a
    /// [`std::future::Future`] for async services (feature `async`; works
    /// with any executor). A process-wide waiter thread polls pending
    /// events. To await the data itself, await a
    /// [`Stream::download_pinned`](crate::Stream::download_pinned)
    /// ([`crate::PinnedCopy`]).
    pub fn wait_async(&self) -> EventFuture {
        EventFuture::new(self.inner.clone())
    }
}

/// A future that resolves when an event has completed
/// ([`Event::wait_async`]). Then read the results it covers: reads of
/// finished work return at once (with its fault, if any).
pub struct EventFuture {
    event: Arc<EventInner>,
    state: Option<Arc<Mutex<Slot>>>,
}

impl EventFuture {
    pub(crate) fn new(event: Arc<EventInner>) -> EventFuture {
        EventFuture { event, state: None }
    }
}

impl Future for EventFuture {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if let Some(st) = &self.state {
            let mut s = st.lock().unwrap_or_else(|e| e.into_inner());
            if s.done {
                return Poll::Ready(());
            }
            s.waker = Some(cx.waker().clone());
            return Poll::Pending;
        }
        if Event::poll_complete(&self.event) {
            return Poll::Ready(());
        }
        let st = Arc::new(Mutex::new(Slot {
            done: false,
            waker: Some(cx.waker().clone()),
        }));
        self.state = Some(st.clone());
        let w = waiter();
        w.queue
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(Pending {
                event: self.event.clone(),
                state: st,
            });
        w.more.notify_one();
        Poll::Pending
    }
}
