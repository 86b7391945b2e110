//! A single-threaded executor. Tasks are futures kept in a slab; a waker
//! puts its task on the ready queue. When no task is ready, the reactor
//! ([`crate::reactor`]) waits in `wasi:io/poll` for the pollables that the
//! tasks wait on.
//!
//! A task is a *daemon* (the stdin reader, the writer and reader of a
//! connection) or not (the main call, [`background`] tasks, endpoint
//! listeners). The process lives while a task that is not a daemon remains.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

use crate::slab::Slab;

type Task = Pin<Box<dyn Future<Output = ()>>>;

/// The id of the future that `block_on` drives (not in the slab).
const MAIN: usize = usize::MAX;

struct Slot {
    /// `None` while the task is being polled.
    future: Option<Task>,
    daemon: bool,
    queued: bool,
}

#[derive(Default)]
struct Executor {
    tasks: Slab<Slot>,
    ready: RefCell<VecDeque<usize>>,
    main_woken: Cell<bool>,
    /// Tasks that keep the process alive.
    live: Cell<usize>,
    running: Cell<bool>,
}

thread_local! {
    static EXECUTOR: Executor = Executor::default();
}

struct TaskWaker(usize);

impl Wake for TaskWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        let id = self.0;
        let _ = EXECUTOR.try_with(|ex| ex.wake(id));
    }
}

impl Executor {
    fn wake(&self, id: usize) {
        if id == MAIN {
            self.main_woken.set(true);
            return;
        }
        let mut slots = self.tasks.slots.borrow_mut();
        if let Some(Some(slot)) = slots.get_mut(id) {
            if !slot.queued {
                slot.queued = true;
                self.ready.borrow_mut().push_back(id);
            }
        }
    }

    fn spawn(&self, future: Task, daemon: bool) {
        let slot = Slot { future: Some(future), daemon, queued: true };
        let id = self.tasks.insert(slot);
        if !daemon {
            self.live.set(self.live.get() + 1);
        }
        self.ready.borrow_mut().push_back(id);
    }

    /// Polls each task that is ready now, once. Returns whether any ran.
    fn run_ready(&self) -> bool {
        let batch: Vec<usize> = self.ready.borrow_mut().drain(..).collect();
        let ran = !batch.is_empty();
        for id in batch {
            let future = {
                let mut slots = self.tasks.slots.borrow_mut();
                match slots.get_mut(id) {
                    Some(Some(slot)) => {
                        slot.queued = false;
                        slot.future.take()
                    }
                    _ => None,
                }
            };
            let Some(mut future) = future else { continue };
            let waker = Waker::from(Arc::new(TaskWaker(id)));
            let done = future.as_mut().poll(&mut Context::from_waker(&waker)).is_ready();
            let mut slots = self.tasks.slots.borrow_mut();
            if done {
                if let Some(slot) = slots[id].take() {
                    if !slot.daemon {
                        self.live.set(self.live.get() - 1);
                    }
                }
                self.tasks.free.borrow_mut().push(id);
            } else if let Some(slot) = slots[id].as_mut() {
                slot.future = Some(future);
            }
        }
        ran
    }

    fn has_ready(&self) -> bool {
        !self.ready.borrow().is_empty() || self.main_woken.get()
    }
}

/// Runs `future` as a task of this process: the process lives until it ends
/// (or until the process is stopped). Use it for a server loop that must go
/// on after the method has answered.
///
/// The task's output may be `()` or a `Result<(), E>`; an error is written
/// to stderr (and so to the journal).
pub fn background<F>(future: F)
where
    F: Future + 'static,
    F::Output: TaskOutput,
{
    spawn(async move { future.await.finish() }, false);
}

/// What a [`background`] task may return.
pub trait TaskOutput {
    /// Handles the output when the task ends.
    fn finish(self);
}

impl TaskOutput for () {
    fn finish(self) {}
}

impl<E: std::fmt::Display> TaskOutput for Result<(), E> {
    fn finish(self) {
        if let Err(e) = self {
            eprintln!("a background task failed: {e}");
        }
    }
}

/// Spawns a task; a daemon does not keep the process alive.
pub(crate) fn spawn(future: impl Future<Output = ()> + 'static, daemon: bool) {
    EXECUTOR.with(|ex| ex.spawn(Box::pin(future), daemon));
}

/// Runs `future` to its end on this thread, together with the tasks of the
/// process, and returns its output. [`run`](crate::run) and
/// `#[sausage_plugin::test]` call it; call it yourself only from a plain
/// `fn` (it panics when called from inside a task).
pub fn block_on<F: Future>(future: F) -> F::Output {
    EXECUTOR.with(|ex| {
        assert!(!ex.running.get(), "block_on was called inside a task of the SDK's executor");
        ex.running.set(true);
    });
    struct Stop;
    impl Drop for Stop {
        fn drop(&mut self) {
            let _ = EXECUTOR.try_with(|ex| ex.running.set(false));
        }
    }
    let _stop = Stop;
    let mut future = std::pin::pin!(future);
    let waker = Waker::from(Arc::new(TaskWaker(MAIN)));
    EXECUTOR.with(|ex| ex.main_woken.set(true));
    loop {
        if EXECUTOR.with(|ex| ex.main_woken.replace(false)) {
            if let Poll::Ready(out) = future.as_mut().poll(&mut Context::from_waker(&waker)) {
                return out;
            }
        }
        EXECUTOR.with(|ex| ex.run_ready());
        if EXECUTOR.with(|ex| ex.has_ready()) {
            continue;
        }
        if !crate::reactor::wait() {
            panic!(
                "sausage_plugin: every task is waiting, and nothing can wake them (no call, socket or timer is pending)"
            );
        }
    }
}

/// Runs the tasks of the process until none that keeps the process alive
/// remains (daemons are left behind).
pub(crate) fn run_until_idle() {
    loop {
        let (live, ran) = EXECUTOR.with(|ex| (ex.live.get(), ex.run_ready()));
        if live == 0 {
            return;
        }
        if ran || EXECUTOR.with(|ex| ex.has_ready()) {
            continue;
        }
        if !crate::reactor::wait() {
            eprintln!("sausage_plugin: the remaining tasks wait for nothing that can happen; the process ends");
            return;
        }
    }
}

/// Runs all futures at the same time and returns their outputs in order.
///
/// ```ignore
/// let counts = join_all((0..3).map(|i| call("notes.add", json!({"text": i})))).await;
/// ```
pub async fn join_all<I>(futures: I) -> Vec<<I::Item as Future>::Output>
where
    I: IntoIterator,
    I::Item: Future,
{
    let mut futures: Vec<Pin<Box<I::Item>>> = futures.into_iter().map(Box::pin).collect();
    let mut outs: Vec<Option<<I::Item as Future>::Output>> = futures.iter().map(|_| None).collect();
    std::future::poll_fn(move |cx| {
        let mut pending = false;
        for (i, f) in futures.iter_mut().enumerate() {
            if outs[i].is_some() {
                continue;
            }
            match f.as_mut().poll(cx) {
                Poll::Ready(v) => outs[i] = Some(v),
                Poll::Pending => pending = true,
            }
        }
        if pending {
            Poll::Pending
        } else {
            Poll::Ready(outs.iter_mut().map(|o| o.take().expect("every future is done")).collect())
        }
    })
    .await
}
