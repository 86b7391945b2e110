//! Async TCP over `wasi:sockets`, on the SDK's executor: a [`TcpListener`]
//! that accepts [`TcpStream`]s, and outgoing connections.
//!
//! ```ignore
//! let listener = TcpListener::bind("0.0.0.0:8080").await?;
//! loop {
//!     let mut stream = listener.accept().await?;
//!     background(async move {
//!         let mut buf = [0; 1024];
//!         let n = stream.read(&mut buf).await?;
//!         stream.write_all(&buf[..n]).await
//!     });
//! }
//! ```

use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, ToSocketAddrs};
use std::rc::Rc;

use wasi::io::streams::{InputStream, OutputStream, StreamError};
use wasi::sockets::network::{
    ErrorCode, IpAddressFamily, IpSocketAddress, Ipv4SocketAddress, Ipv6SocketAddress, Network,
};
use wasi::sockets::tcp::{ShutdownType, TcpSocket};

use crate::reactor::wait_for;

/// The most bytes one `write` may take (the `wasi:io` contract allows 4096
/// per `blocking-write-and-flush`; `check-write` may allow more).
const CHUNK: u64 = 64 * 1024;

/// A TCP socket that listens for connections.
pub struct TcpListener {
    socket: TcpSocket,
    _network: Network,
}

impl TcpListener {
    /// Binds `addr` (`"0.0.0.0:8080"`, `"127.0.0.1:0"` for any free port)
    /// and listens.
    pub async fn bind(addr: &str) -> io::Result<TcpListener> {
        let addr = parse_addr(addr)?;
        let network = wasi::sockets::instance_network::instance_network();
        let socket =
            wasi::sockets::tcp_create_socket::create_tcp_socket(family(&addr)).map_err(to_io)?;
        socket.start_bind(&network, to_wasi(addr)).map_err(to_io)?;
        finish(&socket, || socket.finish_bind()).await?;
        socket.start_listen().map_err(to_io)?;
        finish(&socket, || socket.finish_listen()).await?;
        Ok(TcpListener { socket, _network: network })
    }

    /// The address it listens on (with the port that was chosen for port 0).
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.socket.local_address().map(from_wasi).map_err(to_io)
    }

    /// Waits for the next connection.
    pub async fn accept(&self) -> io::Result<TcpStream> {
        let (socket, input, output) = finish(&self.socket, || self.socket.accept()).await?;
        Ok(TcpStream::new(socket, input, output))
    }
}

struct Inner {
    // Fields drop in order: the streams before their socket.
    input: InputStream,
    output: OutputStream,
    socket: TcpSocket,
}

impl Drop for Inner {
    fn drop(&mut self) {
        // Written bytes reach the other side before the socket closes, even
        // where `flush` and `check-write` do not track the host's queue.
        let _ = self.output.blocking_flush();
    }
}

/// A TCP connection.
pub struct TcpStream {
    inner: Rc<Inner>,
}

impl TcpStream {
    fn new(socket: TcpSocket, input: InputStream, output: OutputStream) -> TcpStream {
        TcpStream { inner: Rc::new(Inner { input, output, socket }) }
    }

    /// Connects to `addr` (`"127.0.0.1:8080"`, or `"example.com:80"`, which
    /// resolves through `wasi:sockets/ip-name-lookup`).
    pub async fn connect(addr: &str) -> io::Result<TcpStream> {
        let addr = match parse_addr(addr) {
            Ok(a) => a,
            Err(_) => addr.to_socket_addrs()?.next().ok_or_else(|| {
                io::Error::new(io::ErrorKind::NotFound, format!("no address for {addr}"))
            })?,
        };
        let network = wasi::sockets::instance_network::instance_network();
        let socket =
            wasi::sockets::tcp_create_socket::create_tcp_socket(family(&addr)).map_err(to_io)?;
        socket.start_connect(&network, to_wasi(addr)).map_err(to_io)?;
        let (input, output) = finish(&socket, || socket.finish_connect()).await?;
        Ok(TcpStream::new(socket, input, output))
    }

    /// The address of the other side.
    pub fn peer_addr(&self) -> io::Result<SocketAddr> {
        self.inner.socket.remote_address().map(from_wasi).map_err(to_io)
    }

    /// Reads some bytes into `buf`; `Ok(0)` at the end of the stream.
    pub async fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        read(&self.inner, buf).await
    }

    /// Writes all of `bytes` and waits until they are flushed.
    pub async fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        write_all(&self.inner, bytes).await
    }

    /// Shuts down the sending side (the other side reads the end of the stream).
    pub fn shutdown(&self) -> io::Result<()> {
        self.inner.socket.shutdown(ShutdownType::Send).map_err(to_io)
    }

    /// Two halves that can be used by different tasks.
    pub fn into_split(self) -> (ReadHalf, WriteHalf) {
        (ReadHalf { inner: self.inner.clone() }, WriteHalf { inner: self.inner })
    }
}

/// The reading half of a [`TcpStream`].
pub struct ReadHalf {
    inner: Rc<Inner>,
}

impl ReadHalf {
    /// Reads some bytes into `buf`; `Ok(0)` at the end of the stream.
    pub async fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        read(&self.inner, buf).await
    }

    /// Reads what is there (up to `max` bytes), waiting for at least one;
    /// empty at the end of the stream.
    pub async fn read_chunk(&mut self, max: usize) -> io::Result<Vec<u8>> {
        read_chunk(&self.inner, max).await
    }
}

/// The writing half of a [`TcpStream`].
pub struct WriteHalf {
    inner: Rc<Inner>,
}

impl WriteHalf {
    /// Writes all of `bytes` and waits until they are flushed.
    pub async fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        write_all(&self.inner, bytes).await
    }

    /// Shuts down the sending side.
    pub fn shutdown(&self) -> io::Result<()> {
        self.inner.socket.shutdown(ShutdownType::Send).map_err(to_io)
    }

    /// Shuts down both sides: the reading half sees the end of the stream.
    pub fn shutdown_both(&self) -> io::Result<()> {
        self.inner.socket.shutdown(ShutdownType::Both).map_err(to_io)
    }

    /// Waits, blocking the whole process, until every written byte is out
    /// (before the process exits).
    pub fn flush_blocking(&self) -> io::Result<()> {
        self.inner
            .output
            .blocking_flush()
            .map_err(|e| io::Error::new(io::ErrorKind::BrokenPipe, format!("{e:?}")))
    }
}

async fn read_chunk(inner: &Inner, max: usize) -> io::Result<Vec<u8>> {
    loop {
        match inner.input.read(max as u64) {
            Ok(bytes) if bytes.is_empty() && max > 0 => wait_for(inner.input.subscribe()).await,
            Ok(bytes) => return Ok(bytes),
            Err(StreamError::Closed) => return Ok(Vec::new()),
            Err(StreamError::LastOperationFailed(e)) => {
                return Err(io::Error::new(io::ErrorKind::ConnectionReset, e.to_debug_string()))
            }
        }
    }
}

async fn read(inner: &Inner, buf: &mut [u8]) -> io::Result<usize> {
    let bytes = read_chunk(inner, buf.len()).await?;
    buf[..bytes.len()].copy_from_slice(&bytes);
    Ok(bytes.len())
}

async fn write_all(inner: &Inner, mut bytes: &[u8]) -> io::Result<()> {
    let failed = |e: StreamError| match e {
        StreamError::Closed => {
            io::Error::new(io::ErrorKind::BrokenPipe, "the connection is closed")
        }
        StreamError::LastOperationFailed(e) => {
            io::Error::new(io::ErrorKind::BrokenPipe, e.to_debug_string())
        }
    };
    while !bytes.is_empty() {
        let n = inner.output.check_write().map_err(failed)?.min(CHUNK) as usize;
        if n == 0 {
            wait_for(inner.output.subscribe()).await;
            continue;
        }
        let n = n.min(bytes.len());
        inner.output.write(&bytes[..n]).map_err(failed)?;
        bytes = &bytes[n..];
    }
    inner.output.flush().map_err(failed)?;
    // The flush is done when the stream can take bytes again.
    while inner.output.check_write().map_err(failed)? == 0 {
        wait_for(inner.output.subscribe()).await;
    }
    Ok(())
}

/// Retries a `finish-*` step until it stops saying `would-block`, waiting on the socket.
async fn finish<T>(
    socket: &TcpSocket,
    mut step: impl FnMut() -> Result<T, ErrorCode>,
) -> io::Result<T> {
    loop {
        match step() {
            Err(ErrorCode::WouldBlock) => wait_for(socket.subscribe()).await,
            r => return r.map_err(to_io),
        }
    }
}

fn parse_addr(addr: &str) -> io::Result<SocketAddr> {
    addr.parse().map_err(|_| {
        io::Error::new(io::ErrorKind::InvalidInput, format!("not an address with a port: {addr:?}"))
    })
}

fn family(addr: &SocketAddr) -> IpAddressFamily {
    match addr {
        SocketAddr::V4(_) => IpAddressFamily::Ipv4,
        SocketAddr::V6(_) => IpAddressFamily::Ipv6,
    }
}

fn to_wasi(addr: SocketAddr) -> IpSocketAddress {
    match addr {
        SocketAddr::V4(a) => {
            let [a0, a1, a2, a3] = a.ip().octets();
            IpSocketAddress::Ipv4(Ipv4SocketAddress { port: a.port(), address: (a0, a1, a2, a3) })
        }
        SocketAddr::V6(a) => {
            let s = a.ip().segments();
            IpSocketAddress::Ipv6(Ipv6SocketAddress {
                port: a.port(),
                flow_info: a.flowinfo(),
                address: (s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]),
                scope_id: a.scope_id(),
            })
        }
    }
}

fn from_wasi(addr: IpSocketAddress) -> SocketAddr {
    match addr {
        IpSocketAddress::Ipv4(a) => {
            let (a0, a1, a2, a3) = a.address;
            SocketAddr::new(IpAddr::V4(Ipv4Addr::new(a0, a1, a2, a3)), a.port)
        }
        IpSocketAddress::Ipv6(a) => {
            let (s0, s1, s2, s3, s4, s5, s6, s7) = a.address;
            SocketAddr::new(IpAddr::V6(Ipv6Addr::new(s0, s1, s2, s3, s4, s5, s6, s7)), a.port)
        }
    }
}

/// The `std::io::Error` of a `wasi:sockets` error code.
fn to_io(code: ErrorCode) -> io::Error {
    use io::ErrorKind as K;
    let kind = match code {
        ErrorCode::AccessDenied => K::PermissionDenied,
        ErrorCode::NotSupported => K::Unsupported,
        ErrorCode::InvalidArgument => K::InvalidInput,
        ErrorCode::OutOfMemory => K::OutOfMemory,
        ErrorCode::Timeout => K::TimedOut,
        ErrorCode::WouldBlock => K::WouldBlock,
        ErrorCode::AddressNotBindable => K::AddrNotAvailable,
        ErrorCode::AddressInUse => K::AddrInUse,
        ErrorCode::RemoteUnreachable => K::HostUnreachable,
        ErrorCode::ConnectionRefused => K::ConnectionRefused,
        ErrorCode::ConnectionReset => K::ConnectionReset,
        ErrorCode::ConnectionAborted => K::ConnectionAborted,
        ErrorCode::NameUnresolvable => K::NotFound,
        _ => K::Other,
    };
    io::Error::new(kind, format!("{} ({})", code.message(), code.name()))
}
