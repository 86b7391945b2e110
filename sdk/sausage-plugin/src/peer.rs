//! One JSON-RPC connection: stdin/stdout to the core, or a TCP connection of
//! an endpoint. It numbers the calls it sends, matches responses to them in
//! any order, hands `core.notify` notifications to the `on_notify` callback
//! of the call they belong to, and queues the requests it receives.

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, VecDeque};
use std::future::poll_fn;
use std::io::Write;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use serde_json::{json, Value};

use crate::error::{Error, Result};

/// A request (or a notification, without `id`) that a peer received.
pub(crate) struct Request {
    pub id: Option<Value>,
    pub method: String,
    pub params: Value,
}

/// A callback for the notifications of one call: `(name, params)`.
pub(crate) type NotifyFn = Box<dyn FnMut(&str, Value)>;

struct Pending {
    outcome: Option<Result<Value>>,
    waker: Option<Waker>,
    on_notify: Option<NotifyFn>,
}

/// Where a peer's messages go.
pub(crate) enum Transport {
    /// stdout, written at once (each message after a newline, section 4.1).
    Stdio,
    /// A byte stream, written by a writer task.
    Stream(Rc<Outbox>),
}

/// Writes one message to stdout: a newline, the JSON, a newline.
fn write_stdout(msg: &Value) -> Result<()> {
    let mut bytes = Vec::with_capacity(256);
    bytes.push(b'\n');
    serde_json::to_writer(&mut bytes, msg)?;
    bytes.push(b'\n');
    let mut out = std::io::stdout().lock();
    out.write_all(&bytes)?;
    out.flush()?;
    Ok(())
}

/// The bytes waiting for a stream's writer task.
#[derive(Default)]
pub(crate) struct Outbox {
    buf: RefCell<Vec<u8>>,
    waker: RefCell<Option<Waker>>,
    closed: Cell<bool>,
}

impl Outbox {
    fn push(&self, bytes: &[u8]) {
        self.buf.borrow_mut().extend_from_slice(bytes);
        if let Some(w) = self.waker.borrow_mut().take() {
            w.wake();
        }
    }

    /// True when nothing waits to be written.
    pub(crate) fn is_empty(&self) -> bool {
        self.buf.borrow().is_empty()
    }

    /// Ends the stream once the bytes written so far are out.
    pub(crate) fn close(&self) {
        self.closed.set(true);
        if let Some(w) = self.waker.borrow_mut().take() {
            w.wake();
        }
    }

    /// The next bytes to write; `None` when the outbox is closed and empty.
    pub(crate) async fn next(&self) -> Option<Vec<u8>> {
        poll_fn(|cx| {
            let mut buf = self.buf.borrow_mut();
            if !buf.is_empty() {
                return Poll::Ready(Some(std::mem::take(&mut *buf)));
            }
            if self.closed.get() {
                return Poll::Ready(None);
            }
            *self.waker.borrow_mut() = Some(cx.waker().clone());
            Poll::Pending
        })
        .await
    }
}

/// A JSON-RPC connection.
pub(crate) struct Peer {
    /// What the connection is, for error messages ("stdin", "the endpoint /run/secrets").
    name: String,
    transport: Transport,
    next_id: Cell<u64>,
    pending: RefCell<HashMap<u64, Pending>>,
    requests: RefCell<VecDeque<Request>>,
    request_waker: RefCell<Option<Waker>>,
    closed: RefCell<Option<String>>,
}

impl Peer {
    pub(crate) fn new(name: impl Into<String>, transport: Transport) -> Rc<Peer> {
        Rc::new(Peer {
            name: name.into(),
            transport,
            next_id: Cell::new(1),
            pending: RefCell::new(HashMap::new()),
            requests: RefCell::new(VecDeque::new()),
            request_waker: RefCell::new(None),
            closed: RefCell::new(None),
        })
    }

    /// What the connection is ("stdin", "the endpoint /run/secrets").
    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    /// Writes one message.
    pub(crate) fn send(&self, msg: &Value) -> Result<()> {
        match &self.transport {
            Transport::Stdio => write_stdout(msg),
            Transport::Stream(outbox) => {
                let mut bytes = serde_json::to_vec(msg)?;
                bytes.push(b'\n');
                outbox.push(&bytes);
                Ok(())
            }
        }
    }

    /// Sends a request and registers it; returns its id.
    pub(crate) fn start_call(
        &self,
        method: &str,
        params: Value,
        on_notify: Option<NotifyFn>,
    ) -> Result<u64> {
        if let Some(reason) = self.closed.borrow().as_ref() {
            return Err(Error::with_code(
                Error::INTERNAL_ERROR,
                format!("cannot call {method}: {reason}"),
            ));
        }
        let id = self.next_id.get();
        self.next_id.set(id + 1);
        self.pending.borrow_mut().insert(id, Pending { outcome: None, waker: None, on_notify });
        let sent =
            self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        if let Err(e) = sent {
            self.pending.borrow_mut().remove(&id);
            return Err(e);
        }
        Ok(id)
    }

    /// The response of call `id`, once it has come.
    pub(crate) fn poll_response(&self, id: u64, cx: &mut Context<'_>) -> Poll<Result<Value>> {
        let mut pending = self.pending.borrow_mut();
        let Some(p) = pending.get_mut(&id) else {
            return Poll::Ready(Err(Error::with_code(
                Error::INTERNAL_ERROR,
                "the call was already answered",
            )));
        };
        match p.outcome.take() {
            Some(outcome) => {
                pending.remove(&id);
                Poll::Ready(outcome)
            }
            None => {
                p.waker = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }

    /// Forgets call `id` (its future was dropped); a late response is ignored.
    pub(crate) fn forget(&self, id: u64) {
        self.pending.borrow_mut().remove(&id);
    }

    /// Sends a notification.
    pub(crate) fn notify(&self, method: &str, params: Value) -> Result<()> {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}))
    }

    /// Answers a request.
    pub(crate) fn respond(&self, id: Value, outcome: Result<Value>) -> Result<()> {
        let msg = match outcome {
            Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
            Err(e) => json!({"jsonrpc": "2.0", "id": id, "error": e.to_json()}),
        };
        self.send(&msg)
    }

    /// The next request or notification that came in; `None` once closed.
    pub(crate) async fn next_request(&self) -> Option<Request> {
        poll_fn(|cx| {
            if let Some(r) = self.requests.borrow_mut().pop_front() {
                return Poll::Ready(Some(r));
            }
            if self.closed.borrow().is_some() {
                return Poll::Ready(None);
            }
            *self.request_waker.borrow_mut() = Some(cx.waker().clone());
            Poll::Pending
        })
        .await
    }

    /// Handles one line that came in. Lines that are not JSON-RPC are ignored.
    pub(crate) fn receive(&self, line: &str) {
        let Ok(msg) = serde_json::from_str::<Value>(line) else {
            return;
        };
        let Some(obj) = msg.as_object() else { return };
        if let Some(method) = obj.get("method").and_then(Value::as_str) {
            let params = obj.get("params").cloned().unwrap_or_else(|| json!({}));
            match obj.get("id") {
                None if method == "core.notify" => self.route_notification(params),
                id => {
                    self.requests.borrow_mut().push_back(Request {
                        id: id.cloned(),
                        method: method.to_string(),
                        params,
                    });
                    if let Some(w) = self.request_waker.borrow_mut().take() {
                        w.wake();
                    }
                }
            }
            return;
        }
        let Some(id) = obj.get("id").and_then(Value::as_u64) else {
            return;
        };
        let outcome = match obj.get("error") {
            Some(e) if !e.is_null() => Err(Error::from_json(e)),
            _ => Ok(obj.get("result").cloned().unwrap_or(Value::Null)),
        };
        self.complete(id, outcome);
    }

    fn complete(&self, id: u64, outcome: Result<Value>) {
        let waker = {
            let mut pending = self.pending.borrow_mut();
            let Some(p) = pending.get_mut(&id) else {
                return;
            };
            p.outcome = Some(outcome);
            p.waker.take()
        };
        if let Some(w) = waker {
            w.wake();
        }
    }

    /// `core.notify {call, name, params}`: to the `on_notify` of call `call`.
    fn route_notification(&self, params: Value) {
        let Some(id) = params.get("call").and_then(Value::as_u64) else {
            return;
        };
        let name = params.get("name").and_then(Value::as_str).unwrap_or_default().to_string();
        let inner = params.get("params").cloned().unwrap_or_else(|| json!({}));
        let callback = self.pending.borrow_mut().get_mut(&id).and_then(|p| p.on_notify.take());
        if let Some(mut f) = callback {
            f(&name, inner);
            if let Some(p) = self.pending.borrow_mut().get_mut(&id) {
                p.on_notify = Some(f);
            }
        }
    }

    /// The other side stopped sending (EOF): each call in flight fails with
    /// `reason`, and [`next_request`](Self::next_request) returns `None`.
    /// Answers can still be written until [`shutdown`](Self::shutdown).
    pub(crate) fn close(&self, reason: String) {
        if self.closed.borrow().is_some() {
            return;
        }
        *self.closed.borrow_mut() = Some(reason.clone());
        // Calls whose answer arrived before the end keep it: only those still
        // waiting fail.
        let ids: Vec<u64> = self
            .pending
            .borrow()
            .iter()
            .filter(|(_, p)| p.outcome.is_none())
            .map(|(id, _)| *id)
            .collect();
        for id in ids {
            self.complete(id, Err(Error::with_code(Error::INTERNAL_ERROR, reason.clone())));
        }
        if let Some(w) = self.request_waker.borrow_mut().take() {
            w.wake();
        }
    }

    /// Closes a stream once what was written is out (stdout stays open).
    pub(crate) fn shutdown(&self) {
        if let Transport::Stream(outbox) = &self.transport {
            outbox.close();
        }
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        self.shutdown();
    }
}
