//! Served files (section 5.1 of the protocol): a process serves files to
//! every other process at `/proc/<pid>/fs/`. Implement [`FileServer`] and
//! call [`serve_files`]; each read, write, listing and stat of a path under
//! `/proc/<pid>/fs/` then calls it, here in this process.
//!
//! ```ignore
//! use sausage_plugin::served::{serve_files, FileServer, FileStat, Entry};
//! use std::io;
//!
//! /// Serves one file, `hello`.
//! struct Hello;
//! impl FileServer for Hello {
//!     fn stat(&self, path: &str) -> io::Result<FileStat> {
//!         match path {
//!             "" => Ok(FileStat::dir()),
//!             "hello" => Ok(FileStat::file(6)),
//!             _ => Err(io::ErrorKind::NotFound.into()),
//!         }
//!     }
//!     fn list(&self, _path: &str) -> io::Result<Vec<Entry>> {
//!         Ok(vec![Entry::file("hello")])
//!     }
//!     fn read(&self, _path: &str) -> io::Result<Vec<u8>> {
//!         Ok(b"hello\n".to_vec())
//!     }
//! }
//! // in a method of a server process (called with `.detach()`):
//! serve_files(Hello).await?;
//! ```
//!
//! A request the process does not answer within 10 seconds fails for the
//! reader with `EIO`: a process that reads its own served files with
//! `std::fs` blocks itself, so it gets that error instead of waiting forever.
//! The methods run on the process's one thread: keep them short.

use std::cell::RefCell;
use std::io;
use std::rc::Rc;

use serde_json::{json, Value};

use crate::error::{Error, Result};
use crate::peer::Request;

/// What a served path is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A regular file.
    File,
    /// A folder.
    Dir,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::File => "file",
            Kind::Dir => "dir",
        }
    }
}

/// The stat of a served path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileStat {
    /// A file or a folder.
    pub kind: Kind,
    /// The bytes of a file (0 for a folder).
    pub size: u64,
}

impl FileStat {
    /// A file of `size` bytes.
    pub fn file(size: u64) -> FileStat {
        FileStat { kind: Kind::File, size }
    }
    /// A folder.
    pub fn dir() -> FileStat {
        FileStat { kind: Kind::Dir, size: 0 }
    }
}

/// A name in a served folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The name (no `/`).
    pub name: String,
    /// A file or a folder.
    pub kind: Kind,
}

impl Entry {
    /// A file named `name`.
    pub fn file(name: impl Into<String>) -> Entry {
        Entry { name: name.into(), kind: Kind::File }
    }
    /// A folder named `name`.
    pub fn dir(name: impl Into<String>) -> Entry {
        Entry { name: name.into(), kind: Kind::Dir }
    }
}

/// The files a process serves. Paths are relative to `/proc/<pid>/fs/`
/// (`""` is that folder, `"a/b"` a file in its folder `a`). An error's
/// [`io::ErrorKind`] is what the reader gets: `NotFound` is `ENOENT`,
/// `ReadOnlyFilesystem` `EROFS`, `IsADirectory` `EISDIR`, and so on.
pub trait FileServer: 'static {
    /// What `path` is; `ErrorKind::NotFound` when nothing is there.
    fn stat(&self, path: &str) -> io::Result<FileStat>;
    /// The names in the folder `path`.
    fn list(&self, path: &str) -> io::Result<Vec<Entry>>;
    /// The whole content of the file `path`.
    fn read(&self, path: &str) -> io::Result<Vec<u8>>;
    /// Writes `data` at `offset` of the file `path` (creating it); with
    /// `truncate`, the file ends after it (`std::fs::write` sends a truncate
    /// with no data, then the data at offset 0). By default files are
    /// read-only (`EROFS`).
    fn write(&self, path: &str, offset: u64, data: &[u8], truncate: bool) -> io::Result<()> {
        let _ = (path, offset, data, truncate);
        Err(io::ErrorKind::ReadOnlyFilesystem.into())
    }
}

thread_local! {
    static SERVER: RefCell<Option<Rc<dyn FileServer>>> = const { RefCell::new(None) };
}

/// Serves `server` at `/proc/<pid>/fs/` for as long as this process runs
/// (the process lives on, like a server that [`listen`](crate::listen)s).
/// Calling it again replaces the server.
pub async fn serve_files<S: FileServer>(server: S) -> Result<()> {
    let first = SERVER.with(|s| s.borrow_mut().replace(Rc::new(server)).is_none());
    crate::call("core.serve", json!({})).await?;
    if first {
        crate::incoming::hold(); // the process lives while it serves
    }
    Ok(())
}

/// Stdin ended: the serving ends.
pub(crate) fn stop() {
    SERVER.with(|s| s.borrow_mut().take());
}

/// The WASI error code of an I/O error, as section 5.1 names them.
fn errno(e: &io::Error) -> &'static str {
    use io::ErrorKind::*;
    match e.kind() {
        NotFound => "no-entry",
        PermissionDenied => "access",
        AlreadyExists => "exist",
        InvalidInput | InvalidData => "invalid",
        IsADirectory => "is-directory",
        NotADirectory => "not-directory",
        ReadOnlyFilesystem => "read-only",
        FileTooLarge => "file-too-large",
        StorageFull => "insufficient-space",
        ResourceBusy => "busy",
        _ => "io",
    }
}

/// Answers a `core.fs` request with the server (section 5.1).
pub(crate) fn answer(req: Request) {
    let Some(id) = req.id else { return };
    let outcome = SERVER.with(|s| s.borrow().clone()).map_or_else(
        || Err(io::Error::new(io::ErrorKind::NotFound, "this process serves no files")),
        |server| perform(&*server, &req.params),
    );
    let outcome = outcome.map_err(|e| {
        Error::with_code(Error::INVALID_PARAMS, e.to_string())
            .with_data(json!({"errno": errno(&e)}))
    });
    let _ = crate::stdio::peer().respond(id, outcome);
}

fn perform(server: &dyn FileServer, params: &Value) -> io::Result<Value> {
    let path = params["path"].as_str().unwrap_or_default();
    let invalid = |what: &str| io::Error::new(io::ErrorKind::InvalidInput, what.to_string());
    match params["op"].as_str().unwrap_or_default() {
        "stat" => {
            let s = server.stat(path)?;
            Ok(json!({"type": s.kind.name(), "size": s.size}))
        }
        "list" => {
            let entries: Vec<Value> = server
                .list(path)?
                .into_iter()
                .map(|e| json!({"name": e.name, "type": e.kind.name()}))
                .collect();
            Ok(json!({ "entries": entries }))
        }
        "read" => Ok(json!({"data": crate::base64::encode(&server.read(path)?)})),
        "write" => {
            let data = params["data"]
                .as_str()
                .and_then(crate::base64::decode)
                .ok_or_else(|| invalid("the data of a write is not base64"))?;
            let offset = params["offset"].as_u64().unwrap_or(0);
            server.write(path, offset, &data, params["truncate"].as_bool().unwrap_or(false))?;
            Ok(json!({}))
        }
        op => Err(invalid(&format!("no served-file operation {op:?}"))),
    }
}
