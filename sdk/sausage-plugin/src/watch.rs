//! Subscriptions to file changes (section 5.2 of the protocol).
//!
//! ```ignore
//! let changes = sausage_plugin::watch(["/state/notes", "/proc/core/locks.json"]).await?;
//! while let Some(c) = changes.next().await {
//!     eprintln!("changed: {:?}", c.paths);
//! }
//! ```

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use serde_json::{json, Value};

use crate::chan::Chan;
use crate::error::{Error, Result};
use crate::peer::Request;

/// The paths that changed, as one notification brings them (the changes of
/// about 100 ms, each path once).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Changes {
    /// The paths, as they were watched (world paths, `/proc/...`, `/run/...`).
    pub paths: Vec<String>,
    /// True when there were more than the paths named (at most 64 are).
    pub more: bool,
}

/// How many notifications for a watch not yet known are kept (they can come
/// before the answer of `core.watch` is read).
const EARLY: usize = 64;

thread_local! {
    static WATCHES: RefCell<HashMap<u64, Rc<Chan<Changes>>>> = RefCell::new(HashMap::new());
    static EARLY_CHANGES: RefCell<Vec<(u64, Changes)>> = const { RefCell::new(Vec::new()) };
}

/// A subscription to changes of some paths. Dropping it unsubscribes.
pub struct Watch {
    id: u64,
    changes: Rc<Chan<Changes>>,
}

/// Subscribes to changes of `paths` (absolute: world paths, `/proc/...` and
/// `/run/...` paths; a folder covers what is in it). Fails with -32004 past
/// the world's `watches` limit, -32602 for a path that cannot be watched.
pub async fn watch<P: AsRef<str>>(paths: impl IntoIterator<Item = P>) -> Result<Watch> {
    let paths: Vec<String> = paths.into_iter().map(|p| p.as_ref().to_string()).collect();
    let answer = crate::call("core.watch", json!({ "paths": paths })).await?;
    let id = answer["watch"]
        .as_u64()
        .ok_or_else(|| Error::new(format!("core.watch answered no watch: {answer}")))?;
    let changes = Rc::new(Chan::default());
    WATCHES.with(|w| w.borrow_mut().insert(id, changes.clone()));
    EARLY_CHANGES.with(|e| {
        e.borrow_mut().retain(|(w, c)| {
            if *w == id {
                changes.push(c.clone());
            }
            *w != id
        })
    });
    Ok(Watch { id, changes })
}

impl Watch {
    /// The next changes; `None` once the process is stopping.
    pub async fn next(&self) -> Option<Changes> {
        self.changes.next().await
    }

    /// The watch's number (`core.watch`'s answer).
    pub fn id(&self) -> u64 {
        self.id
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        WATCHES.with(|w| w.borrow_mut().remove(&self.id));
        let _ = crate::stdio::peer().notify("core.unwatch", json!({"watch": self.id}));
    }
}

/// A `core.changed` notification from the core.
pub(crate) fn receive(req: Request) {
    let Some(id) = req.params["watch"].as_u64() else { return };
    let paths = match &req.params["paths"] {
        Value::Array(a) => a.iter().filter_map(|p| p.as_str().map(String::from)).collect(),
        _ => vec![],
    };
    let changes = Changes { paths, more: req.params["more"].as_bool().unwrap_or(false) };
    match WATCHES.with(|w| w.borrow().get(&id).cloned()) {
        Some(chan) => chan.push(changes),
        None => EARLY_CHANGES.with(|e| {
            let mut e = e.borrow_mut();
            if e.len() < EARLY {
                e.push((id, changes));
            }
        }),
    }
}

/// Stdin ended: each watch's `next` returns `None`.
pub(crate) fn stop() {
    WATCHES.with(|w| w.borrow().values().for_each(|c| c.close()));
}
