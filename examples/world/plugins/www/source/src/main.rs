//! A web server for the files in `/state/www/`.
//!
//! `start` starts the server in its own process and returns at once. Call it
//! detached, or the server ends with its caller. The running server serves
//! the endpoint `control` at `/proc/<pid>/control`, and its state as files at
//! `/proc/<pid>/fs/` (`hits`: the HTTP requests it answered).
//!
//! It listens on 127.0.0.1 (this machine only) unless `/config/www.json`
//! says otherwise: `{"host": "0.0.0.0"}` serves every network interface.

mod http;

use std::{cell::Cell, rc::Rc};

use sausage_plugin::net::TcpListener;
use sausage_plugin::served::{Entry, FileStat};
use sausage_plugin::{FileServer, Result, background, listen, pid, rpc, schema, serve_files};

/// The www plugin.
struct Www;

/// The params of `start`.
#[schema]
struct StartParams {
    /// The TCP port to listen on, at 127.0.0.1 unless /config/www.json gives a "host".
    port: u16,
}

#[rpc(endpoints(control = Control))]
impl Www {
    /// Start the web server and return the ID of its process.
    ///
    /// The server runs until it gets `stop` on its endpoint, until
    /// `core.stop`, or until its caller ends. Fails if the port is in use.
    async fn start(&self, StartParams { port }: StartParams) -> Result<String> {
        let tcp = TcpListener::bind(&address(&bind_host(), port)).await?;
        let control = Rc::new(Control { hits: Cell::new(0) });
        listen("/self/control", control.clone()).await?;
        serve_files(StateFiles(control.clone())).await?;
        background(serve(tcp, control)); // the process lives while this task runs
        Ok(pid())
    }
}

/// The world's settings of the server.
const CONFIG: &str = "/config/www.json";

/// The address to listen on: `host` in `/config/www.json`, else 127.0.0.1.
fn bind_host() -> String {
    std::fs::read_to_string(CONFIG)
        .ok()
        .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
        .and_then(|v| v["host"].as_str().map(str::to_string))
        .unwrap_or_else(|| "127.0.0.1".to_string())
}

/// `host:port`, with an IPv6 host in brackets.
fn address(host: &str, port: u16) -> String {
    if host.contains(':') { format!("[{host}]:{port}") } else { format!("{host}:{port}") }
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

/// The server's state as files at `/proc/<pid>/fs/`: `hits`, one number and a newline.
struct StateFiles(Rc<Control>);

impl StateFiles {
    fn hits(&self) -> Vec<u8> {
        format!("{}\n", self.0.hits.get()).into_bytes()
    }
}

impl FileServer for StateFiles {
    fn stat(&self, path: &str) -> std::io::Result<FileStat> {
        match path {
            "" => Ok(FileStat::dir()),
            "hits" => Ok(FileStat::file(self.hits().len() as u64)),
            _ => Err(std::io::ErrorKind::NotFound.into()),
        }
    }
    fn list(&self, _path: &str) -> std::io::Result<Vec<Entry>> {
        Ok(vec![Entry::file("hits")])
    }
    fn read(&self, path: &str) -> std::io::Result<Vec<u8>> {
        match path {
            "hits" => Ok(self.hits()),
            _ => Err(std::io::ErrorKind::NotFound.into()),
        }
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
