//! A queue between tasks of this process: one side pushes, one task awaits
//! the next item; closing it ends the waiting with `None`.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::future::poll_fn;
use std::task::{Poll, Waker};

/// A single-threaded async queue.
pub(crate) struct Chan<T> {
    items: RefCell<VecDeque<T>>,
    waker: RefCell<Option<Waker>>,
    closed: RefCell<bool>,
}

impl<T> Default for Chan<T> {
    fn default() -> Self {
        Chan {
            items: RefCell::new(VecDeque::new()),
            waker: RefCell::new(None),
            closed: RefCell::new(false),
        }
    }
}

impl<T> Chan<T> {
    fn wake(&self) {
        if let Some(w) = self.waker.borrow_mut().take() {
            w.wake();
        }
    }

    /// Adds an item (dropped once the queue is closed).
    pub(crate) fn push(&self, item: T) {
        if !*self.closed.borrow() {
            self.items.borrow_mut().push_back(item);
            self.wake();
        }
    }

    /// Ends the queue: the items in it still come, then `None`.
    pub(crate) fn close(&self) {
        *self.closed.borrow_mut() = true;
        self.wake();
    }

    /// The next item; `None` once closed and empty.
    pub(crate) async fn next(&self) -> Option<T> {
        poll_fn(|cx| {
            if let Some(item) = self.items.borrow_mut().pop_front() {
                return Poll::Ready(Some(item));
            }
            if *self.closed.borrow() {
                return Poll::Ready(None);
            }
            *self.waker.borrow_mut() = Some(cx.waker().clone());
            Poll::Pending
        })
        .await
    }
}
