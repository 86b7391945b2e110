//! Pipes of the core for endpoints (section 6 of the protocol): the
//! transport that [`listen`](crate::listen) uses by default. A JSON-RPC
//! connection whose bytes the core relays between two processes as
//! `core.pipe` notifications on stdin and stdout, so the endpoint code above
//! it (a [`Peer`] over an [`Outbox`]) is the same as over TCP.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use serde_json::json;

use crate::error::{Error, Result};
use crate::executor::spawn;
use crate::lines::LineBuffer;
use crate::peer::{Outbox, Peer, Request, Transport};

/// What a listener does with a new connection.
type OnOpen = Rc<dyn Fn(Rc<Peer>)>;

/// One open connection: its peer and the partial line that came so far.
struct Conn {
    peer: Rc<Peer>,
    lines: LineBuffer,
}

thread_local! {
    static LISTENERS: RefCell<HashMap<String, OnOpen>> = RefCell::new(HashMap::new());
    static CONNS: RefCell<HashMap<u64, Conn>> = RefCell::new(HashMap::new());
}

/// Asks the core for a pipe serving `interface`; `on_open` gets each new
/// connection. Returns the address (`pipe:<n>`).
pub(crate) async fn listen(
    interface: &str,
    on_open: impl Fn(Rc<Peer>) + 'static,
) -> Result<String> {
    let answer = crate::call("core.listen", json!({ "interface": interface })).await?;
    let address = answer["address"]
        .as_str()
        .ok_or_else(|| Error::new(format!("core.listen answered no address: {answer}")))?
        .to_string();
    LISTENERS.with(|l| l.borrow_mut().insert(address.clone(), Rc::new(on_open)));
    crate::incoming::hold(); // the process lives while it listens
    Ok(address)
}

/// Connects to the pipe `address`, which must serve `interface`.
pub(crate) async fn connect(address: &str, interface: &str, name: String) -> Result<Rc<Peer>> {
    let answer =
        crate::call("core.connect", json!({ "address": address, "interface": interface })).await?;
    let conn = answer["conn"]
        .as_u64()
        .ok_or_else(|| Error::new(format!("core.connect answered no connection: {answer}")))?;
    Ok(open(conn, name))
}

/// The peer of connection `conn`, with the task that sends what it writes.
fn open(conn: u64, name: String) -> Rc<Peer> {
    let outbox = Rc::new(Outbox::default());
    let peer = Peer::new(name, Transport::Stream(outbox.clone()));
    CONNS.with(|c| {
        c.borrow_mut().insert(conn, Conn { peer: peer.clone(), lines: LineBuffer::default() })
    });
    spawn(
        async move {
            let stdio = crate::stdio::peer();
            while let Some(bytes) = outbox.next().await {
                let data = String::from_utf8_lossy(&bytes);
                if stdio.notify("core.pipe", json!({"conn": conn, "data": data})).is_err() {
                    break;
                }
                // Exit once every queued answer is out (as over TCP).
                if crate::process::exit_requested() && outbox.is_empty() {
                    crate::process::exit_now();
                }
            }
            if CONNS.with(|c| c.borrow_mut().remove(&conn)).is_some() {
                let _ = stdio.notify("core.pipe", json!({"conn": conn, "close": true}));
            }
        },
        true,
    );
    peer
}

/// A `core.pipe` notification from the core: a new connection, data, or the end of one.
pub(crate) fn receive(req: Request) {
    let p = &req.params;
    let Some(conn) = p["conn"].as_u64() else { return };
    if let Some(address) = p["open"].as_str() {
        let on_open = LISTENERS.with(|l| l.borrow().get(address).cloned());
        let from = p["from"].as_str().unwrap_or("?");
        match on_open {
            Some(f) => f(open(conn, format!("a connection of {from} to the endpoint {address}"))),
            None => {
                let _ =
                    crate::stdio::peer().notify("core.pipe", json!({"conn": conn, "close": true}));
            }
        }
        return;
    }
    if let Some(data) = p["data"].as_str() {
        let (peer, lines) = CONNS.with(|c| {
            let mut c = c.borrow_mut();
            match c.get_mut(&conn) {
                Some(open) => (Some(open.peer.clone()), open.lines.push(data.as_bytes())),
                None => (None, vec![]),
            }
        });
        if let Some(peer) = peer {
            lines.iter().for_each(|l| peer.receive(l));
        }
    }
    if p["close"].as_bool() == Some(true) {
        if let Some(open) = CONNS.with(|c| c.borrow_mut().remove(&conn)) {
            open.peer.close(format!("{} was closed", open.peer.name()));
        }
    }
}

/// Stdin ended: every connection ends with it.
pub(crate) fn stop() {
    let conns: Vec<Conn> = CONNS.with(|c| c.borrow_mut().drain().map(|(_, v)| v).collect());
    for c in conns {
        c.peer.close("stdin closed: the process is stopping".to_string());
    }
    LISTENERS.with(|l| l.borrow_mut().clear());
}
