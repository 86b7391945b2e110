//! The reactor: futures that wait for a `wasi:io/poll` pollable (stdin has
//! bytes, a socket can accept, a timer is due). The executor calls [`wait`]
//! when no task is ready: one `poll` over every pollable that a task waits
//! for, then the tasks of the ready ones are woken.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use wasi::io::poll::Pollable;

use crate::slab::Slab;

struct Waiting {
    pollable: Pollable,
    waker: Waker,
    ready: bool,
}

thread_local! {
    static REACTOR: Slab<Waiting> = Slab::default();
}

/// Waits in `wasi:io/poll` until at least one registered pollable is ready,
/// and wakes the tasks that wait for them. Returns `false` (at once) when
/// nothing is registered.
pub(crate) fn wait() -> bool {
    REACTOR.with(|r| {
        let ready: Vec<usize> = {
            let slots = r.slots.borrow();
            let (ids, list): (Vec<usize>, Vec<&Pollable>) = slots
                .iter()
                .enumerate()
                .filter_map(|(i, s)| s.as_ref().filter(|w| !w.ready).map(|w| (i, &w.pollable)))
                .unzip();
            if list.is_empty() {
                return false;
            }
            wasi::io::poll::poll(&list).into_iter().map(|i| ids[i as usize]).collect()
        };
        let mut wakers = Vec::with_capacity(ready.len());
        {
            let mut slots = r.slots.borrow_mut();
            for id in ready {
                if let Some(w) = slots[id].as_mut() {
                    w.ready = true;
                    wakers.push(w.waker.clone());
                }
            }
        }
        for w in wakers {
            w.wake();
        }
        true
    })
}

/// A future that is ready when its pollable is.
pub(crate) struct WaitFor {
    pollable: Option<Pollable>,
    slot: Option<usize>,
}

/// Waits until `pollable` is ready.
pub(crate) fn wait_for(pollable: Pollable) -> WaitFor {
    WaitFor { pollable: Some(pollable), slot: None }
}

impl Future for WaitFor {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        REACTOR.with(|r| match self.slot {
            None => {
                let pollable = self.pollable.take().expect("WaitFor polled after completion");
                if pollable.ready() {
                    return Poll::Ready(());
                }
                let waiting = Waiting { pollable, waker: cx.waker().clone(), ready: false };
                let id = r.insert(waiting);
                self.slot = Some(id);
                Poll::Pending
            }
            Some(id) => {
                let mut slots = r.slots.borrow_mut();
                let w = slots[id].as_mut().expect("a registered wait");
                if w.ready {
                    slots[id] = None;
                    r.free.borrow_mut().push(id);
                    self.slot = None;
                    self.pollable = None;
                    Poll::Ready(())
                } else {
                    if !w.waker.will_wake(cx.waker()) {
                        w.waker = cx.waker().clone();
                    }
                    Poll::Pending
                }
            }
        })
    }
}

impl Drop for WaitFor {
    fn drop(&mut self) {
        if let Some(id) = self.slot.take() {
            let _ = REACTOR.try_with(|r| r.remove(id));
        }
    }
}

/// Waits for `duration` on the monotonic clock, without blocking other tasks.
pub async fn sleep(duration: Duration) {
    let ns = u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX);
    wait_for(wasi::clocks::monotonic_clock::subscribe_duration(ns)).await
}

/// The error of [`timeout`]: the future did not finish in time (and was
/// dropped). It converts into [`Error`](crate::Error) with `?`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Elapsed(
    /// The deadline that passed.
    pub Duration,
);

impl std::fmt::Display for Elapsed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "timed out after {} ms", self.0.as_millis())
    }
}

impl std::error::Error for Elapsed {}

/// Runs `future` for at most `duration`: its output, or [`Elapsed`] when the
/// time ran out first. The future is dropped then, so a call in flight in it
/// is cancelled (`core.cancel`: the core stops the callee, PROTOCOL 4.6).
///
/// ```ignore
/// let r = timeout(Duration::from_secs(5), call("slow.work", json!({}))).await??;
/// ```
pub async fn timeout<F: std::future::Future>(
    duration: Duration,
    future: F,
) -> Result<F::Output, Elapsed> {
    let mut future = std::pin::pin!(future);
    let mut timer = std::pin::pin!(sleep(duration));
    std::future::poll_fn(|cx| {
        if let std::task::Poll::Ready(v) = future.as_mut().poll(cx) {
            return std::task::Poll::Ready(Ok(v));
        }
        if timer.as_mut().poll(cx).is_ready() {
            return std::task::Poll::Ready(Err(Elapsed(duration)));
        }
        std::task::Poll::Pending
    })
    .await
}
