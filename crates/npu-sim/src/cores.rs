//! The "AI Cores": helper threads that join a kernel's work.
//!
//! Built for latency, not throughput: a kernel is cut into blocks that its
//! calling thread takes one after another; posting the work asks the
//! helpers to take blocks too. A helper spins after its last block before
//! it sleeps ([`SPIN`]), so back-to-back launches find it awake; a sleeping
//! helper is woken through the kernel only for work big enough to pay for
//! the wake-up (see [`Cores::run`]). The caller never waits for a helper
//! to start, only for blocks a helper has taken.

use std::sync::atomic::{AtomicI64, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// How long an idle helper spins before it sleeps. Waking a sleeping
/// thread costs the waker a futex call of 8-10 us (median, on a 2-vCPU
/// VM) and the sleeper starts 5-20 us later, against about 22 us for a
/// 1 MiB copy on one core; a loop that does 50-100 us of other work
/// between two kernels found a 50 us spinner asleep every time. Measured
/// on a quiet 2-core host, 300 us kept it awake: 1 MiB copies 14-17 us
/// instead of 35-52 (docs/architecture.md, "Kernel speed").
const SPIN: Duration = Duration::from_micros(300);

/// Work cut into blocks, shared by its caller and the helpers: the next
/// block to take, how many helpers are inside a block, and the work
/// (type-erased; called only after a block was taken, while the caller
/// waits: see [`Cores::run`]).
struct Blocks {
    next: AtomicI64,
    nblocks: i64,
    units: i64,
    active: AtomicUsize,
    f: *const (dyn Fn(i64, i64) + Sync),
}

// SAFETY: `f` points to a `Sync` closure, called only while the caller of
// `Cores::run` waits for it (see there); the rest is atomics.
unsafe impl Send for Blocks {}
// SAFETY: as above.
unsafe impl Sync for Blocks {}

/// Splits `[0, units)` into `nblocks` near-equal ranges: range `b`.
pub(crate) fn split(units: i64, nblocks: i64, b: i64) -> (i64, i64) {
    let at = |k: i64| (units as i128 * k as i128 / nblocks as i128) as i64;
    (at(b), at(b + 1))
}

impl Blocks {
    /// Takes and runs blocks until none is left. A helper (`counted`)
    /// counts itself in `active` before each take.
    ///
    /// # Safety
    /// `self.f` is alive while a block remains to be taken.
    unsafe fn help(&self, counted: bool) {
        loop {
            if counted {
                self.active.fetch_add(1, Ordering::SeqCst);
            }
            let b = self.next.fetch_add(1, Ordering::SeqCst);
            if b >= self.nblocks {
                if counted {
                    self.active.fetch_sub(1, Ordering::SeqCst);
                }
                return;
            }
            let (lo, hi) = split(self.units, self.nblocks, b);
            // SAFETY: a block was taken, so the caller still waits: `f`
            // is alive.
            unsafe { (*self.f)(lo, hi) };
            if counted {
                self.active.fetch_sub(1, Ordering::SeqCst);
            }
        }
    }
}

struct Shared {
    /// The latest posted work (a helper that misses one loses nothing:
    /// the caller takes every block nobody else does).
    job: Mutex<Option<Arc<Blocks>>>,
    /// Bumped at each post.
    posts: AtomicU64,
    /// Helpers asleep on `wake`.
    sleeping: Mutex<usize>,
    wake: Condvar,
    /// Helpers not asleep (spinning for a post, or in a block): a mirror of
    /// `threads - 1 - sleeping`, read without the lock.
    awake: AtomicUsize,
}

/// A set of helper threads (`threads - 1` of them: the caller is a core
/// too). Shared by every runtime of a process with the same thread count.
pub struct Cores {
    threads: usize,
    shared: Arc<Shared>,
}

impl Cores {
    /// Starts `threads - 1` helpers.
    pub fn new(threads: usize) -> Result<Cores, String> {
        let shared = Arc::new(Shared {
            job: Mutex::new(None),
            posts: AtomicU64::new(0),
            sleeping: Mutex::new(0),
            wake: Condvar::new(),
            awake: AtomicUsize::new(threads.saturating_sub(1)),
        });
        for i in 1..threads {
            let s = shared.clone();
            std::thread::Builder::new()
                .name(format!("npu-sim-core-{i}"))
                .spawn(move || helper(&s))
                .map_err(|e| format!("cannot start the kernel threads: {e}"))?;
        }
        Ok(Cores {
            threads: threads.max(1),
            shared,
        })
    }

    /// The number of cores (helpers and the caller).
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Whether a helper is awake (spinning for work, or in a block): work
    /// posted now is shared without waking anyone.
    pub fn helper_awake(&self) -> bool {
        self.shared.awake.load(Ordering::SeqCst) > 0
    }

    /// Runs `f(begin, end)` over `[0, units)` in `nblocks` blocks, on this
    /// thread and whichever helpers join in; returns when every block has
    /// run. `wake`: wake sleeping helpers (a futex call on this thread, worth
    /// it only for work that takes several times as long); otherwise only
    /// helpers already awake join, and with none awake this thread runs
    /// the work alone, posting nothing.
    pub fn run(&self, units: i64, nblocks: i64, wake: bool, f: impl Fn(i64, i64) + Sync) {
        let nblocks = nblocks.clamp(1, units.max(1));
        if nblocks == 1 || self.threads == 1 || !(wake || self.helper_awake()) {
            f(0, units);
            return;
        }
        let f: &(dyn Fn(i64, i64) + Sync) = &f;
        // SAFETY (lifetime erasure): this function does not return before
        // every block taken has run, and a helper calls `f` only after
        // taking a block.
        let f: *const (dyn Fn(i64, i64) + Sync) = unsafe { std::mem::transmute(f) };
        let blocks = Arc::new(Blocks {
            next: AtomicI64::new(0),
            nblocks,
            units,
            active: AtomicUsize::new(0),
            f,
        });
        *lock(&self.shared.job) = Some(blocks.clone());
        self.shared.posts.fetch_add(1, Ordering::SeqCst);
        if wake && self.shared.awake.load(Ordering::SeqCst) + 1 < self.threads {
            // Taking the lock orders this post before a helper's check
            // under it: a helper that counted itself asleep is woken, one
            // that has not yet sees the new post before it waits.
            let _sleeping = lock(&self.shared.sleeping);
            self.shared.wake.notify_all();
        }
        // SAFETY: `f` lives until this function returns.
        unsafe { blocks.help(false) };
        // Every block is taken (this thread's last take failed): wait for
        // those still running on helpers. No helper can take one after
        // this: it counts itself before it takes, and takes past the end.
        let mut spins = 0u32;
        while blocks.active.load(Ordering::SeqCst) != 0 {
            spins += 1;
            if spins < 4096 {
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
        // Drop the job if it is still posted (helpers hold clones at most).
        let mut job = lock(&self.shared.job);
        if job.as_ref().is_some_and(|j| Arc::ptr_eq(j, &blocks)) {
            *job = None;
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn helper(s: &Shared) {
    let mut seen = s.posts.load(Ordering::SeqCst);
    loop {
        // Spin for a new post, then sleep until one.
        let start = Instant::now();
        let mut i = 0u32;
        while s.posts.load(Ordering::SeqCst) == seen {
            i += 1;
            if i.is_multiple_of(64) {
                if start.elapsed() > SPIN {
                    let mut n = lock(&s.sleeping);
                    *n += 1;
                    s.awake.fetch_sub(1, Ordering::SeqCst);
                    while s.posts.load(Ordering::SeqCst) == seen {
                        n = s.wake.wait(n).unwrap_or_else(|e| e.into_inner());
                    }
                    s.awake.fetch_add(1, Ordering::SeqCst);
                    *n -= 1;
                    break;
                }
                std::thread::yield_now();
            } else {
                std::hint::spin_loop();
            }
        }
        seen = s.posts.load(Ordering::SeqCst);
        let job = lock(&s.job).clone();
        if let Some(b) = job {
            // SAFETY: see `Blocks::help`; a helper that arrives after the
            // last block was taken returns without touching `f`.
            unsafe { b.help(true) };
        }
    }
}
