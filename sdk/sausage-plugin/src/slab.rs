//! The slabs of the executor (tasks) and the reactor (waits): entries kept
//! by id in a vector, with the ids of removed ones reused, so that the
//! vector stays as long as the most entries alive at once.

use std::cell::RefCell;

/// Entries by id, and the ids of the empty slots.
pub(crate) struct Slab<T> {
    /// The entries by id; `None` where one was removed.
    pub(crate) slots: RefCell<Vec<Option<T>>>,
    /// The ids of the empty slots, reused first.
    pub(crate) free: RefCell<Vec<usize>>,
}

impl<T> Default for Slab<T> {
    fn default() -> Self {
        Slab { slots: RefCell::new(Vec::new()), free: RefCell::new(Vec::new()) }
    }
}

impl<T> Slab<T> {
    /// Puts `value` in an empty slot, or in a new one at the end, and returns its id.
    pub(crate) fn insert(&self, value: T) -> usize {
        let reused = self.free.borrow_mut().pop();
        let mut slots = self.slots.borrow_mut();
        match reused {
            Some(id) => {
                slots[id] = Some(value);
                id
            }
            None => {
                slots.push(Some(value));
                slots.len() - 1
            }
        }
    }

    /// Empties the slot `id` for reuse.
    pub(crate) fn remove(&self, id: usize) {
        self.slots.borrow_mut()[id] = None;
        self.free.borrow_mut().push(id);
    }
}
