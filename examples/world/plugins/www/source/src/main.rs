//! A web server for the files in `/state/www/`.
//!
//! `start` starts the server in its own process and returns at once. Call it
//! detached, or the server ends with its caller. The running server serves
//! the endpoint `control` at `/proc/<pid>/control`.

mod http;

use std::{cell::Cell, rc::Rc};

use sausage_plugin::net::TcpListener;
use sausage_plugin::{Result, background, listen, pid, rpc, schema};

/// The www plugin.
struct Www;

/// The params of `start`.
#[schema]
struct StartParams {
    /// The TCP port to listen on, on all interfaces.
    port: u16,
}

#[rpc(endpoints(control = Control))]
impl Www {
    /// Start the web server and return the ID of its process.
    ///
    /// The server runs until it gets `stop` on its endpoint, until
    /// `core.stop`, or until its caller ends. Fails if the port is in use.
    async fn start(&self, StartParams { port }: StartParams) -> Result<String> {
        let tcp = TcpListener::bind(&format!("0.0.0.0:{port}")).await?;
        let control = Rc::new(Control { hits: Cell::new(0) });
        listen("/self/control", control.clone()).await?;
        background(serve(tcp, control)); // the process lives while this task runs
        Ok(pid())
    }
}

/// The control endpoint of a running server.
struct Control {
    /// The number of HTTP requests that the server answered.
    hits: Cell<u64>,
}

#[rpc]
impl Control {
    /// The number of HTTP requests that the server answered since its start.
    fn stats(&self) -> Result<u64> {
        Ok(self.hits.get())
    }

    /// Stop the server. The process ends after this response.
    fn stop(&self) -> Result<()> {
        sausage_plugin::exit_after_response();
        Ok(())
    }
}

/// Accept HTTP connections, and answer each request from `/state/www/`.
async fn serve(tcp: TcpListener, control: Rc<Control>) {
    loop {
        match tcp.accept().await {
            Ok(stream) => {
                let control = control.clone();
                background(async move {
                    if http::answer(stream, "/state/www").await {
                        control.hits.set(control.hits.get() + 1);
                    }
                });
            }
            Err(e) => {
                eprintln!("www stopped accepting connections: {e}");
                return;
            }
        }
    }
}

fn main() {
    sausage_plugin::run(Www);
}
