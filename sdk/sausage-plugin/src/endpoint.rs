//! Endpoints (section 6): an interface that a running process serves
//! through a pipe of the core (`pipe:<n>`, what [`listen`] makes) or on a
//! TCP port of 127.0.0.1 (`tcp:127.0.0.1:<port>`, [`listen_tcp`]), found
//! through an endpoint file with one line: `<address> <owner pid>
//! <interface>`. JSON-RPC runs on each connection, one message per line;
//! [`connect`] takes either address.

use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::{Duration, Instant};

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

use crate::call::Call;
use crate::ctx::Ctx;
use crate::error::{Error, Result};
use crate::executor::spawn;
use crate::interface::{Interface, Listenable, LocalBoxFuture};
use crate::lines::LineBuffer;
use crate::net::{TcpListener, TcpStream};
use crate::peer::{Outbox, Peer, Transport};

/// The content of an endpoint file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EndpointFile {
    /// The address with its scheme: `pipe:<n>` or `tcp:127.0.0.1:<port>`.
    pub address: String,
    /// The pid of the process that serves it.
    pub owner: String,
    /// The name of the endpoint interface.
    pub interface: String,
}

impl EndpointFile {
    /// Parses the line `<address> <owner> <interface>` (a `pipe:` or `tcp:` address).
    pub fn parse(text: &str) -> Option<EndpointFile> {
        let mut parts = text.split_whitespace();
        let address = parts.next()?.to_string();
        if !address.starts_with("pipe:") && !address.starts_with("tcp:") {
            return None;
        }
        let owner = parts.next()?.to_string();
        let interface = parts.next()?.to_string();
        parts.next().is_none().then_some(EndpointFile { address, owner, interface })
    }

    /// Reads and parses the endpoint file at `path`.
    pub fn read(path: impl AsRef<Path>) -> Result<EndpointFile> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|e| {
            Error::from(e).context(format!("cannot read the endpoint file {}", path.display()))
        })?;
        EndpointFile::parse(&text).ok_or_else(|| {
            Error::new(format!(
                "{} is not an endpoint file (expected `pipe:<n> <owner> <interface>` or `tcp:127.0.0.1:<port> <owner> <interface>`): {:?}",
                path.display(),
                text.trim()
            ))
        })
    }

    /// The line of the file, with its newline.
    pub fn line(&self) -> String {
        format!("{} {} {}\n", self.address, self.owner, self.interface)
    }
}

/// Serves `value` (an endpoint interface of this plugin, or an `Rc` of one)
/// through a pipe of the core, and writes the endpoint file at `path`
/// (usually in `/self`; a singleton uses a fixed path in `/run`). The
/// process then lives until it ends by other means ([`exit_after_response`](crate::exit_after_response),
/// `core.stop`, the end of its caller).
///
/// Only interfaces declared with `#[rpc(endpoints(name = Type))]` compile.
pub fn listen<L: Listenable>(
    path: impl AsRef<Path>,
    value: L,
) -> LocalBoxFuture<'static, Result<()>> {
    // A boxed future of one type, not an `async fn`: a value that is not an
    // endpoint interface is then one compiler error, at the call.
    Box::pin(listen_pipe(path.as_ref().to_path_buf(), value.into_rc(), L::name()))
}

/// Like [`listen`], on a free TCP port of 127.0.0.1 instead of a pipe: for
/// a client that needs a real port. [`connect`] reaches both alike.
pub fn listen_tcp<L: Listenable>(
    path: impl AsRef<Path>,
    value: L,
) -> LocalBoxFuture<'static, Result<()>> {
    Box::pin(listen_rc(path.as_ref().to_path_buf(), value.into_rc(), L::name()))
}

async fn listen_pipe<T: Interface>(path: PathBuf, iface: Rc<T>, name: &'static str) -> Result<()> {
    let address = crate::pipe::listen(name, move |peer| {
        spawn(serve_peer(iface.clone(), peer, name), true);
    })
    .await?;
    write_file(
        &path,
        &EndpointFile { address, owner: crate::process::pid(), interface: name.to_string() },
    )
}

async fn listen_rc<T: Interface>(path: PathBuf, iface: Rc<T>, name: &'static str) -> Result<()> {
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let port = listener.local_addr()?.port();
    let file = EndpointFile {
        address: format!("tcp:127.0.0.1:{port}"),
        owner: crate::process::pid(),
        interface: name.to_string(),
    };
    write_file(&path, &file)?;
    spawn(accept_loop(listener, iface, name), false);
    Ok(())
}

/// Writes an endpoint file (its folder made first).
fn write_file(path: &Path, file: &EndpointFile) -> Result<()> {
    if let Some(parent) = path.parent() {
        let _ = std::fs::create_dir_all(parent);
    }
    std::fs::write(path, file.line()).map_err(|e| {
        Error::from(e).context(format!("cannot write the endpoint file {}", path.display()))
    })?;
    Ok(())
}

async fn accept_loop<T: Interface>(listener: TcpListener, iface: Rc<T>, name: &'static str) {
    loop {
        match listener.accept().await {
            Ok(stream) => spawn(serve_connection(iface.clone(), stream, name), true),
            Err(e) => {
                eprintln!("the endpoint {name} stopped accepting connections: {e}");
                return;
            }
        }
    }
}

/// Answers each request of one TCP connection, each in its own task.
async fn serve_connection<T: Interface>(iface: Rc<T>, stream: TcpStream, name: &'static str) {
    serve_peer(iface, open(stream, format!("a connection to the endpoint {name}")), name).await
}

/// Answers each request of one connection (TCP or pipe), each in its own task.
async fn serve_peer<T: Interface>(iface: Rc<T>, peer: Rc<Peer>, name: &'static str) {
    while let Some(req) = peer.next_request().await {
        let (iface, peer) = (iface.clone(), peer.clone());
        spawn(
            async move {
                let id = req.id.clone();
                let ctx = match &id {
                    Some(id) => Ctx::endpoint(peer.clone(), id.clone()),
                    None => Ctx::default(),
                };
                let outcome = crate::server::answer(&*iface, &ctx, req, Some(name)).await;
                if let Some(id) = id {
                    let _ = peer.respond(id, outcome);
                }
            },
            true,
        );
    }
}

/// A JSON-RPC peer over a TCP connection, with its reader and writer tasks.
fn open(stream: TcpStream, name: String) -> Rc<Peer> {
    let (mut read, mut write) = stream.into_split();
    let outbox = Rc::new(Outbox::default());
    let peer = Peer::new(name, Transport::Stream(outbox.clone()));
    let reader = peer.clone();
    spawn(
        async move {
            let mut lines = LineBuffer::default();
            let reason = loop {
                match read.read_chunk(64 * 1024).await {
                    Ok(bytes) if bytes.is_empty() => break format!("{} was closed", reader.name()),
                    Ok(bytes) => lines.push(&bytes).iter().for_each(|l| reader.receive(l)),
                    Err(e) => break format!("{} failed: {e}", reader.name()),
                }
            };
            if let Some(line) = lines.finish() {
                reader.receive(&line);
            }
            reader.close(reason);
        },
        true,
    );
    spawn(
        async move {
            while let Some(bytes) = outbox.next().await {
                if write.write_all(&bytes).await.is_err() {
                    return;
                }
                // Exit once every queued answer is out: the answer that asked for
                // the exit may have been queued while an earlier one was written.
                if crate::process::exit_requested() && outbox.is_empty() {
                    let _ = write.flush_blocking();
                    crate::process::exit_now();
                }
            }
            let _ = write.shutdown();
        },
        true,
    );
    peer
}

/// A connection to an endpoint. Dropping it closes the connection.
pub struct Endpoint {
    peer: Rc<Peer>,
    file: EndpointFile,
}

impl Endpoint {
    /// Calls `method` (a method name of the endpoint interface, without a
    /// plugin prefix: `stats`) and resolves with its result.
    pub fn call(&self, method: &str, params: impl Serialize) -> Call<Value> {
        Call::new(Some(self.peer.clone()), method, params)
    }

    /// Like [`call`](Self::call), with the result deserialized into `T`.
    pub fn call_as<T: DeserializeOwned>(&self, method: &str, params: impl Serialize) -> Call<T> {
        Call::new(Some(self.peer.clone()), method, params)
    }

    /// The pid of the process that serves the endpoint.
    pub fn owner(&self) -> &str {
        &self.file.owner
    }

    /// The name of the endpoint interface.
    pub fn interface(&self) -> &str {
        &self.file.interface
    }
}

impl Drop for Endpoint {
    fn drop(&mut self) {
        self.peer.shutdown();
    }
}

/// Connects to the endpoint whose file is at `path`, whatever its interface.
/// Fails when the file is missing or malformed, or when its owner has ended
/// (no `/proc/<owner>`: a stale file).
pub async fn connect(path: impl AsRef<Path>) -> Result<Endpoint> {
    open_endpoint(path.as_ref(), None).await
}

/// Connects to the endpoint at `path` and checks that it serves
/// `interface` (generated clients call this).
pub async fn connect_as(path: impl AsRef<Path>, interface: &str) -> Result<Endpoint> {
    open_endpoint(path.as_ref(), Some(interface)).await
}

/// The `__private` name of [`connect_as`] for generated code.
pub async fn connect_interface(path: &str, interface: &str) -> Result<Endpoint> {
    connect_as(path, interface).await
}

/// The connection that a generated endpoint client holds (see
/// `sausage-plugin-codegen`'s contract with the runtime).
pub struct EndpointClient(Endpoint);

impl EndpointClient {
    /// Connects to the endpoint at `path`, which must serve `interface`.
    pub async fn connect(path: &str, interface: &'static str) -> Result<EndpointClient> {
        connect_as(path, interface).await.map(EndpointClient)
    }

    /// A call of `method` (no plugin prefix) on this connection.
    pub fn call_typed<P: Serialize + ?Sized, T: DeserializeOwned>(
        &self,
        method: &'static str,
        params: &P,
    ) -> Call<T> {
        self.0.call_as(method, params)
    }
}

async fn open_endpoint(path: &Path, interface: Option<&str>) -> Result<Endpoint> {
    let file = EndpointFile::read(path)?;
    if !Path::new("/proc").join(&file.owner).exists() {
        return Err(Error::new(format!(
            "the endpoint {} is stale: its owner {} has ended (no /proc/{})",
            path.display(),
            file.owner,
            file.owner
        )));
    }
    if let Some(expected) = interface {
        if file.interface != expected {
            return Err(Error::new(format!(
                "the endpoint {} serves the interface {}, not {expected}",
                path.display(),
                file.interface
            )));
        }
    }
    let name = format!("the endpoint {}", path.display());
    let fail = |e: Error| {
        e.context(format!("cannot connect to the endpoint {} at {}", path.display(), file.address))
    };
    let peer = match file.address.strip_prefix("tcp:") {
        Some(address) => {
            let stream = TcpStream::connect(address).await.map_err(|e| fail(e.into()))?;
            open(stream, name)
        }
        None => crate::pipe::connect(&file.address, &file.interface, name).await.map_err(fail)?,
    };
    Ok(Endpoint { peer, file })
}

/// The pid of the process that serves the endpoint at `path` (as its file
/// says). A singleton's `start` returns it when another instance runs. Waits
/// up to 2 seconds for the file to appear: the holder of a lock may not
/// have written it yet.
pub fn endpoint_owner(path: impl AsRef<Path>) -> Result<String> {
    let path = path.as_ref();
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        match EndpointFile::read(path) {
            Ok(file) => return Ok(file.owner),
            Err(e) if Instant::now() >= deadline => return Err(e),
            Err(_) => std::thread::sleep(Duration::from_millis(20)),
        }
    }
}
