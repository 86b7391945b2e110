//! memfs: a server process that keeps files in memory and serves them to
//! every other process at `/proc/<pid>/fs/`, with its own state as the
//! read-only `status.json`; a `control` endpoint (a pipe of the core) for
//! its live counts; and methods that watch paths for changes.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::io;
use std::rc::Rc;
use std::time::Duration;

use sausage_plugin::served::{Entry, FileStat};
use sausage_plugin::{
    FileServer, Result, connect, listen, listen_tcp, lock, pid, rpc, schema, serve_files, sleep,
    timeout, watch,
};
use serde_json::{Value, json};

/// The memfs plugin.
struct Memfs;

/// The files and counts of a server process.
#[derive(Default)]
struct Store {
    /// The files by name (one folder, no subfolders).
    files: RefCell<BTreeMap<String, Vec<u8>>>,
    /// Reads served.
    reads: Cell<u64>,
    /// Writes served.
    writes: Cell<u64>,
}

impl Store {
    /// `status.json`: the server's own state.
    fn status(&self) -> Vec<u8> {
        let files = self.files.borrow();
        let bytes: usize = files.values().map(Vec::len).sum();
        let mut out = serde_json::to_vec_pretty(&json!({
            "files": files.len(),
            "bytes": bytes,
            "reads": self.reads.get(),
            "writes": self.writes.get(),
        }))
        .unwrap();
        out.push(b'\n');
        out
    }
}

/// The store as served files.
struct Files(Rc<Store>);

const STATUS: &str = "status.json";

impl FileServer for Files {
    fn stat(&self, path: &str) -> io::Result<FileStat> {
        match path {
            "" => Ok(FileStat::dir()),
            STATUS => Ok(FileStat::file(self.0.status().len() as u64)),
            name => match self.0.files.borrow().get(name) {
                Some(bytes) => Ok(FileStat::file(bytes.len() as u64)),
                None => Err(io::ErrorKind::NotFound.into()),
            },
        }
    }

    fn list(&self, path: &str) -> io::Result<Vec<Entry>> {
        if !path.is_empty() {
            return Err(io::ErrorKind::NotADirectory.into());
        }
        let mut out = vec![Entry::file(STATUS)];
        out.extend(self.0.files.borrow().keys().map(Entry::file));
        Ok(out)
    }

    fn read(&self, path: &str) -> io::Result<Vec<u8>> {
        self.0.reads.set(self.0.reads.get() + 1);
        match path {
            "" => Err(io::ErrorKind::IsADirectory.into()),
            STATUS => Ok(self.0.status()),
            name => self.0.files.borrow().get(name).cloned().ok_or(io::ErrorKind::NotFound.into()),
        }
    }

    fn write(&self, path: &str, offset: u64, data: &[u8], truncate: bool) -> io::Result<()> {
        if path == STATUS {
            return Err(io::ErrorKind::ReadOnlyFilesystem.into());
        }
        if path.is_empty() || path.contains('/') {
            return Err(io::ErrorKind::PermissionDenied.into());
        }
        self.0.writes.set(self.0.writes.get() + 1);
        let mut files = self.0.files.borrow_mut();
        let file = files.entry(path.to_string()).or_default();
        let end = offset as usize + data.len();
        if file.len() < end {
            file.resize(end, 0);
        }
        file[offset as usize..end].copy_from_slice(data);
        if truncate {
            file.truncate(end);
        }
        Ok(())
    }
}

/// The control endpoint of a server process.
struct Control(Rc<Store>);

/// A path.
#[schema]
struct PathParams {
    /// The path.
    path: String,
}

#[rpc]
impl Control {
    /// The server's counts, live (what status.json says).
    fn stats(&self) -> Result<Value> {
        Ok(serde_json::from_slice(&self.0.status())?)
    }

    /// Read one of this process's own served files with std::fs: the process
    /// cannot answer the core while it waits, so the read fails after 10 s.
    fn read_own(&self, PathParams { path }: PathParams) -> Result<Value> {
        let started = std::time::Instant::now();
        let outcome = std::fs::read(format!("/self/fs/{path}"));
        let ms = started.elapsed().as_millis() as u64;
        Ok(match outcome {
            Ok(bytes) => json!({"data": String::from_utf8_lossy(&bytes), "ms": ms}),
            Err(e) => json!({"error": e.to_string(), "ms": ms}),
        })
    }
}

/// The params of `watch_for`.
#[schema]
struct WatchParams {
    /// The paths to watch.
    paths: Vec<String>,
    /// How many notifications to wait for.
    count: usize,
    /// How long to wait for them, in ms.
    ms: u64,
    /// A path to write once the watch is in place (before waiting), if any.
    ready: Option<String>,
}

/// The params of `hold_lock`.
#[schema]
struct LockParams {
    /// The lock's path.
    path: String,
    /// How long to hold it, in ms.
    ms: u64,
}

/// The params of `ask`.
#[schema]
struct AskParams {
    /// The endpoint file.
    endpoint: String,
    /// The method of the endpoint to call.
    method: String,
    /// Its params.
    #[serde(default)]
    params: Value,
}

/// The params of `start`.
#[schema]
struct StartParams {
    /// Serve the control endpoint on a TCP port instead of a pipe.
    #[serde(default)]
    tcp: bool,
}

/// The params of `bench`.
#[schema]
struct BenchParams {
    /// The endpoint file.
    endpoint: String,
    /// How many calls of `stats` to make, one after another.
    n: u32,
}

/// The params of `watch_many`.
#[schema]
struct ManyParams {
    /// How many paths to watch in one call.
    n: usize,
}

#[rpc(endpoints(control = Control))]
impl Memfs {
    /// Start a server (call it detached): serve files at /proc/<pid>/fs/ and
    /// the control endpoint at /self/control. Returns the pid.
    async fn start(&self, StartParams { tcp }: StartParams) -> Result<String> {
        let store = Rc::new(Store::default());
        serve_files(Files(store.clone())).await?;
        if tcp {
            listen_tcp("/self/control", Control(store)).await?;
        } else {
            listen("/self/control", Control(store)).await?;
        }
        Ok(pid())
    }

    /// Connect to an endpoint and call `stats` `n` times in a row: the time to connect and
    /// the median time of one call, in microseconds.
    async fn bench(&self, BenchParams { endpoint, n }: BenchParams) -> Result<Value> {
        let t0 = std::time::Instant::now();
        let control = connect(&endpoint).await?;
        let connect_us = t0.elapsed().as_micros() as u64;
        let mut times = Vec::new();
        for _ in 0..n {
            let t = std::time::Instant::now();
            control.call("stats", json!({})).await?;
            times.push(t.elapsed().as_micros() as u64);
        }
        times.sort();
        Ok(json!({"connect_us": connect_us, "call_us": times.get(times.len() / 2)}))
    }

    /// Connect to an endpoint file and make one call on it.
    async fn ask(&self, AskParams { endpoint, method, params }: AskParams) -> Result<Value> {
        let control = connect(&endpoint).await?;
        control.call(&method, params).await
    }

    /// Watch `paths` until `count` notifications came (or `ms` passed); return them.
    async fn watch_for(&self, p: WatchParams) -> Result<Value> {
        let w = watch(&p.paths).await?;
        if let Some(ready) = &p.ready {
            std::fs::write(ready, b"ready")?;
        }
        let mut seen = Vec::new();
        let wait = async {
            while seen.len() < p.count {
                match w.next().await {
                    Some(c) => seen.push(json!({"paths": c.paths, "more": c.more})),
                    None => break,
                }
            }
        };
        let _ = timeout(Duration::from_millis(p.ms), wait).await;
        Ok(json!({"watch": w.id(), "changes": seen}))
    }

    /// Watch `n` paths (under /run) in one call: past the world's `watches` it fails.
    async fn watch_many(&self, ManyParams { n }: ManyParams) -> Result<u64> {
        let paths: Vec<String> = (0..n).map(|i| format!("/run/many-{i}")).collect();
        Ok(watch(&paths).await?.id())
    }

    /// Hold a lock for `ms` ms.
    async fn hold_lock(&self, LockParams { path, ms }: LockParams) -> Result<bool> {
        let guard = lock(&path).await?;
        sleep(Duration::from_millis(ms)).await;
        drop(guard);
        Ok(true)
    }
}

fn main() {
    sausage_plugin::run(Memfs);
}
