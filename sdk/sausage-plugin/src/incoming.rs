//! Messages the core sends a running process after its call (sections 5.1,
//! 5.2 and 6 of the protocol): `core.fs` requests for the files it serves,
//! `core.pipe` for its pipe connections, `core.changed` for its watches.
//! The stdin loop of [`run`](crate::run) hands each one here.

use std::rc::Rc;

use crate::chan::Chan;
use crate::peer::Request;

thread_local! {
    static LIFE: Rc<Chan<()>> = Rc::new(Chan::default());
    static HELD: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Handles a message of the core; gives back any other request.
pub(crate) fn route(req: Request) -> Option<Request> {
    match req.method.as_str() {
        "core.fs" => crate::served::answer(req),
        "core.pipe" => crate::pipe::receive(req),
        "core.changed" => crate::watch::receive(req),
        _ => return Some(req),
    }
    None
}

/// Keeps the process alive until stdin ends (a server of files or pipes).
pub(crate) fn hold() {
    if HELD.with(|h| h.replace(true)) {
        return;
    }
    let life = LIFE.with(Rc::clone);
    crate::executor::spawn(async move { while life.next().await.is_some() {} }, false);
}

/// Stdin ended: what the core sent is over.
pub(crate) fn stop() {
    LIFE.with(|l| l.close());
    crate::served::stop();
    crate::pipe::stop();
    crate::watch::stop();
}
