//! stdin and stdout: the connection of a process to the core.
//!
//! Messages go to stdout through Rust's own stdout (the same one `print!`
//! uses), each after a newline, so that a `print!` without a newline cannot
//! damage a message (section 4.1); the peer's `Transport::Stdio` writes
//! them. stdin is read without blocking through `wasi:cli/stdin`, by a
//! daemon task that starts with the first call or with [`run`](crate::run).

use std::cell::RefCell;
use std::rc::Rc;

use wasi::io::streams::StreamError;

use crate::lines::LineBuffer;
use crate::peer::{Peer, Transport};

thread_local! {
    static STDIO: RefCell<Option<Rc<Peer>>> = const { RefCell::new(None) };
}

/// The connection to the core; the first use starts the stdin reader.
pub(crate) fn peer() -> Rc<Peer> {
    STDIO.with(|cell| {
        if let Some(p) = cell.borrow().as_ref() {
            return p.clone();
        }
        let p = Peer::new("stdin", Transport::Stdio);
        *cell.borrow_mut() = Some(p.clone());
        crate::executor::spawn(read_stdin(p.clone()), true);
        p
    })
}

/// Reads stdin line by line into the peer. At the end of stdin, calls in
/// flight fail; a serving process stops at once (EOF means "stop now",
/// section 4.6).
async fn read_stdin(peer: Rc<Peer>) {
    let stdin = wasi::cli::stdin::get_stdin();
    let mut lines = LineBuffer::default();
    let reason = loop {
        match stdin.read(64 * 1024) {
            Ok(bytes) if bytes.is_empty() => crate::reactor::wait_for(stdin.subscribe()).await,
            Ok(bytes) => {
                for line in lines.push(&bytes) {
                    peer.receive(&line);
                }
            }
            Err(StreamError::Closed) => break "stdin closed: the process is stopping".to_string(),
            Err(StreamError::LastOperationFailed(e)) => {
                break format!("reading stdin failed: {}", e.to_debug_string())
            }
        }
    };
    if let Some(line) = lines.finish() {
        peer.receive(&line);
    }
    peer.close(reason);
    if crate::process::serving() {
        crate::process::exit_now();
    }
}
