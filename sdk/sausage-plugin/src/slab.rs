//! The slabs of the executor (tasks) and the reactor (waits): a vector of
//! slots and a list of the free ones, so that ids are reused and the vector
//! stays as long as the most entries alive at once.

use std::cell::RefCell;

/// Puts `value` in a free slot, or in a new one at the end, and returns its id.
pub(crate) fn insert<T>(slots: &RefCell<Vec<Option<T>>>, free: &RefCell<Vec<usize>>, value: T) -> usize {
    let reused = free.borrow_mut().pop();
    let mut slots = slots.borrow_mut();
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
