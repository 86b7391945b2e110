//! Serving: [`run`] answers the one request of a process on stdin; the same
//! [`answer`] serves each request on an endpoint connection.

use std::rc::Rc;

use serde_json::Value;

use crate::ctx::Ctx;
use crate::discover::document;
use crate::error::{Error, Result};
use crate::interface::Interface;
use crate::peer::{Peer, Request};
use crate::process;

/// Serves the main interface: reads the request on stdin, answers it on
/// stdout, then runs the background tasks and endpoints of the process
/// until none remains. Call it in `main`; the process ends when it returns.
///
/// Every plugin also answers `rpc.discover` with its OpenRPC document.
pub fn run<T: Interface>(value: T) {
    process::set_serving();
    let stdio = crate::stdio::peer();
    crate::executor::block_on(async {
        let Some(req) = stdio.next_request().await else {
            return;
        };
        crate::executor::spawn(reject_more_requests(stdio.clone()), true);
        let id = req.id.clone();
        let outcome = answer(&value, &Ctx::default(), req, None).await;
        if let Some(id) = id {
            let _ = stdio.respond(id, outcome);
        }
        if process::exit_requested() {
            process::exit_now();
        }
    });
    crate::executor::run_until_idle();
    drop(value);
}

/// A process answers one call: later requests on stdin get an error, but
/// for the core's own messages (served files, pipes, watches).
async fn reject_more_requests(stdio: Rc<Peer>) {
    while let Some(req) = stdio.next_request().await {
        let Some(req) = crate::incoming::route(req) else { continue };
        if let Some(id) = req.id {
            let e = Error::with_code(
                Error::METHOD_NOT_FOUND,
                format!("{} was sent to a process that already has its call", req.method),
            );
            let _ = stdio.respond(id, Err(e));
        }
    }
    crate::incoming::stop();
}

/// Answers one request with interface `value`. `endpoint` names the
/// endpoint interface for error messages (`None`: the main interface).
pub(crate) async fn answer<T: Interface>(
    value: &T,
    ctx: &Ctx,
    req: Request,
    endpoint: Option<&str>,
) -> Result<Value> {
    if req.method == "rpc.discover" {
        return Ok(document::<T>());
    }
    match value.__dispatch(ctx, &req.method, req.params) {
        Some(future) => future.await,
        None => {
            let plugin = T::__info().title;
            let what = match endpoint {
                Some(name) => format!("the endpoint interface {name} of {plugin}"),
                None => plugin.to_string(),
            };
            // The methods it has, and the closest one: what to call instead.
            let doc = document::<T>();
            let names: Vec<String> = doc["methods"]
                .as_array()
                .map(|ms| ms.iter().filter_map(|m| m["name"].as_str().map(String::from)).collect())
                .unwrap_or_default();
            let hint = crate::closest::closest(&req.method, &names)
                .map(|c| match endpoint {
                    Some(_) => format!("; did you mean {c}?"),
                    None => format!("; did you mean {plugin}.{c}?"),
                })
                .unwrap_or_default();
            Err(Error::with_code(
                Error::METHOD_NOT_FOUND,
                format!(
                    "{what} has no method {}{hint} (its methods: {}; see rpc.discover)",
                    req.method,
                    if names.is_empty() { "none".to_string() } else { names.join(", ") },
                ),
            ))
        }
    }
}
