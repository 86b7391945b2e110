//! Locks (section 7): advisory locks held by the core, by path, granted in
//! FIFO order and released when the holder ends.

use std::future::IntoFuture;
use std::path::Path;

use serde::Deserialize;
use serde_json::json;

use crate::call::typed_call;
use crate::error::{Error, Result};
use crate::interface::LocalBoxFuture;

/// A lock request; await it for a [`LockGuard`], or use [`Lock::try_now`].
#[must_use = "a lock is taken only when awaited"]
pub struct Lock {
    path: String,
}

/// Takes the lock on `path` (`core.lock`). Await it: it resolves when this
/// process holds the lock. The path is only a name: the core does not block
/// writes to the file.
///
/// ```ignore
/// let _lock = lock("/state/notes/notes.json").await?; // released on drop
/// ```
pub fn lock(path: impl AsRef<Path>) -> Lock {
    Lock { path: path.as_ref().to_string_lossy().into_owned() }
}

#[derive(Deserialize)]
struct Held {
    held: bool,
}

impl Lock {
    /// Takes the lock if it is free now (`"wait": false`): `Some(guard)`,
    /// or `None` when another process holds it.
    pub async fn try_now(self) -> Result<Option<LockGuard>> {
        let r: Held = typed_call("core.lock", json!({"path": self.path, "wait": false})).await?;
        Ok(r.held.then(|| LockGuard { path: Some(self.path) }))
    }
}

impl IntoFuture for Lock {
    type Output = Result<LockGuard>;
    type IntoFuture = LocalBoxFuture<'static, Result<LockGuard>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(async move {
            let r: Held = typed_call("core.lock", json!({"path": self.path})).await?;
            if !r.held {
                return Err(Error::new(format!(
                    "core.lock did not grant the lock on {}",
                    self.path
                )));
            }
            Ok(LockGuard { path: Some(self.path) })
        })
    }
}

/// A held lock. Dropping it releases the lock (`core.unlock`); the core also
/// releases every lock of a process when it ends, even after a crash.
#[must_use = "the lock is released when the guard is dropped"]
pub struct LockGuard {
    /// `None` once kept.
    path: Option<String>,
}

impl LockGuard {
    /// The path of the lock.
    pub fn path(&self) -> &str {
        self.path.as_deref().unwrap_or_default()
    }

    /// Holds the lock until this process ends (a singleton holds its lock so).
    pub fn keep(mut self) {
        self.path = None;
    }
}

impl Drop for LockGuard {
    fn drop(&mut self) {
        if let Some(path) = self.path.take() {
            // Sent now, answer ignored: Drop cannot wait.
            let peer = crate::stdio::peer();
            if let Ok(id) = peer.start_call("core.unlock", json!({"path": path}), None) {
                peer.forget(id);
            }
        }
    }
}
