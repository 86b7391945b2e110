//! [`Ctx`]: what a method knows about the call it answers.

use std::rc::Rc;

use serde::Serialize;
use serde_json::{json, Value};

use crate::peer::Peer;

/// The context of a call: an optional argument of a method (`ctx: &Ctx`,
/// after `&self`). It does not appear in the method's params.
///
/// `Ctx::default()` is the context of a call through the core; use it to
/// call such a method in a test.
#[derive(Default)]
pub struct Ctx {
    /// `None`: the call came through the core (stdin).
    endpoint: Option<(Rc<Peer>, Value)>,
}

impl Ctx {
    /// The context of request `id` on an endpoint connection.
    pub(crate) fn endpoint(peer: Rc<Peer>, id: Value) -> Ctx {
        Ctx { endpoint: Some((peer, id)) }
    }

    /// Tells the caller about progress while the call runs (section 4.5): the
    /// caller gets `core.notify {call, name, params}` and an SDK caller's
    /// [`Call::on_notify`](crate::Call::on_notify) callback gets `(name, params)`.
    /// After the call has ended, notifications are dropped. Failures are
    /// ignored: a notification is a hint, not a result.
    pub fn notify(&self, name: &str, params: impl Serialize) {
        let params = serde_json::to_value(params).unwrap_or(Value::Null);
        let _ = match &self.endpoint {
            None => {
                crate::stdio::peer().notify("core.notify", json!({"name": name, "params": params}))
            }
            Some((peer, id)) => {
                peer.notify("core.notify", json!({"call": id, "name": name, "params": params}))
            }
        };
    }
}
