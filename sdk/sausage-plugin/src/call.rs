//! Calls: [`call`] sends a JSON-RPC request through the core (or on an
//! endpoint connection) and resolves with its result. Many calls can be in
//! flight at the same time; their responses come in any order.

use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};

use crate::error::{Error, Result};
use crate::peer::{NotifyFn, Peer};

/// A call in the making, and then in flight. Await it for the result.
///
/// Like every Rust future, it does nothing until it is awaited; to run
/// several calls at the same time, await them together with
/// [`join_all`](crate::join_all), or run them in [`background`](crate::background) tasks.
///
/// Dropping it before its answer cancels the call: the core stops the callee
/// (see the `Drop` impl).
#[must_use = "a call does nothing until it is awaited"]
pub struct Call<T = Value> {
    /// `None`: through the core on stdout.
    peer: Option<Rc<Peer>>,
    method: String,
    params: Result<Value>,
    detach: bool,
    on_notify: Option<NotifyFn>,
    sent: Option<(Rc<Peer>, u64)>,
    done: bool,
    _out: PhantomData<fn() -> T>,
}

/// Calls `method` (`<plugin>.<method>` or `core.<method>`) with `params` (a
/// value that serializes to a JSON object, such as `json!({...})` or a
/// `#[schema]` struct) and resolves with the result as a JSON value.
///
/// ```ignore
/// let added = call("notes.add", json!({"text": "milk"})).await?;
/// ```
pub fn call(method: &str, params: impl Serialize) -> Call<Value> {
    typed_call(method, params)
}

/// A call whose result is deserialized into `T` (used by generated clients).
pub fn typed_call<T: DeserializeOwned>(method: &str, params: impl Serialize) -> Call<T> {
    Call::new(None, method, params)
}

/// A call of `method` with `params` by reference (what generated clients call).
pub fn call_typed<P: Serialize + ?Sized, T: DeserializeOwned>(method: &str, params: &P) -> Call<T> {
    Call::new(None, method, params)
}

/// Turns params into a JSON object (`null` and `()` become `{}`).
fn params_object(method: &str, params: impl Serialize) -> Result<Value> {
    match serde_json::to_value(params)? {
        Value::Null => Ok(json!({})),
        v @ Value::Object(_) => Ok(v),
        other => Err(Error::with_code(
            Error::INVALID_PARAMS,
            format!("the params of {method} must be a JSON object, not {other}"),
        )),
    }
}

impl<T: DeserializeOwned> Call<T> {
    pub(crate) fn new(peer: Option<Rc<Peer>>, method: &str, params: impl Serialize) -> Self {
        Call {
            peer,
            method: method.to_string(),
            params: params_object(method, params),
            detach: false,
            on_notify: None,
            sent: None,
            done: false,
            _out: PhantomData,
        }
    }

    /// Makes the call detached (`core.call` with `detach: true`, section
    /// 4.4): the new process does not end when this process ends. The call
    /// still resolves with the result of the method.
    pub fn detach(mut self) -> Self {
        self.detach = true;
        self
    }

    /// Calls `f(name, params)` for each notification that the callee sends
    /// with `ctx.notify` while the call runs (section 4.5).
    pub fn on_notify(mut self, f: impl FnMut(&str, Value) + 'static) -> Self {
        self.on_notify = Some(Box::new(f));
        self
    }

    /// The same call, with its result deserialized into `U`.
    pub fn returning<U: DeserializeOwned>(mut self) -> Call<U> {
        assert!(self.sent.is_none(), "returning() on a call that was already sent");
        Call {
            peer: self.peer.take(),
            method: std::mem::take(&mut self.method),
            params: std::mem::replace(&mut self.params, Ok(Value::Null)),
            detach: self.detach,
            on_notify: self.on_notify.take(),
            sent: None,
            done: false,
            _out: PhantomData,
        }
    }

    fn start(&mut self) -> Result<(Rc<Peer>, u64)> {
        let params = std::mem::replace(&mut self.params, Ok(Value::Null))?;
        let (peer, method, params) = match (&self.peer, self.detach) {
            (None, false) => (crate::stdio::peer(), self.method.clone(), params),
            (None, true) => (
                crate::stdio::peer(),
                "core.call".to_string(),
                json!({"method": self.method, "params": params, "detach": true}),
            ),
            (Some(_), true) => {
                return Err(Error::with_code(
                    Error::INVALID_PARAMS,
                    format!("{} is a call on an endpoint connection: only calls through the core can be detached", self.method),
                ))
            }
            (Some(peer), false) => (peer.clone(), self.method.clone(), params),
        };
        let id = peer.start_call(&method, params, self.on_notify.take())?;
        Ok((peer, id))
    }
}

impl<T: DeserializeOwned> Future for Call<T> {
    type Output = Result<T>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<T>> {
        let this = self.get_mut();
        assert!(!this.done, "a Call was polled after it completed");
        if this.sent.is_none() {
            match this.start() {
                Ok(sent) => this.sent = Some(sent),
                Err(e) => {
                    this.done = true;
                    return Poll::Ready(Err(e));
                }
            }
        }
        let (peer, id) = this.sent.as_ref().expect("sent above");
        let outcome = match peer.poll_response(*id, cx) {
            Poll::Pending => return Poll::Pending,
            Poll::Ready(outcome) => outcome,
        };
        this.done = true;
        Poll::Ready(outcome.and_then(|v| {
            serde_json::from_value(v).map_err(|e| {
                Error::with_code(
                    Error::INTERNAL_ERROR,
                    format!("the result of {} does not have the expected type: {e}", this.method),
                )
            })
        }))
    }
}

/// Dropping a call that was sent and not answered cancels it: a call through
/// the core sends `core.cancel` with its id (PROTOCOL 4.6), and the core stops
/// the callee and its attached processes, as `core.stop` does. A detached
/// call's process keeps running; a call on an endpoint connection is only
/// forgotten (its late answer is ignored).
impl<T> Drop for Call<T> {
    fn drop(&mut self) {
        if let (Some((peer, id)), false) = (&self.sent, self.done) {
            peer.forget(*id);
            if self.peer.is_none() && !self.detach {
                let _ = peer.notify("core.cancel", json!({"id": id}));
            }
        }
    }
}
