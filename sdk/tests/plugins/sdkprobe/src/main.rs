//! sdkprobe: each method exercises one part of the SDK runtime, for the
//! host-level tests in `tests/sdk_test.ts`.

use std::cell::Cell;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::time::Duration;

use sausage_plugin::{
    Ctx, Error, Result, background, call, connect, connect_as, endpoint_owner, join_all, listen,
    lock, pid, rpc, schema, sleep,
};
use serde_json::{Value, json};

/// The probe.
struct Probe;

/// A call to make.
#[schema]
struct CallSpec {
    /// The method, `<plugin>.<method>`.
    method: String,
    /// Its params.
    #[serde(default)]
    params: Value,
}

/// The params of `relay`.
#[schema]
struct RelayParams {
    /// The call to make.
    call: CallSpec,
    /// Make it detached.
    detach: Option<bool>,
}

/// What `relay` saw.
#[schema]
struct Relayed {
    /// The result, when the call succeeded.
    result: Option<Value>,
    /// The error (code, message, data), when it failed.
    error: Option<Value>,
    /// The notifications that came while the call ran: `[name, params]`.
    notes: Vec<(String, Value)>,
}

/// The params of `progress`.
#[schema]
struct ProgressParams {
    /// How many notifications to send.
    count: u32,
}

/// The params of `fanout`.
#[schema]
struct FanoutParams {
    /// The calls, made at the same time.
    calls: Vec<CallSpec>,
}

/// The params of `sleepy`.
#[schema]
struct SleepParams {
    /// How long to sleep, in milliseconds.
    ms: u64,
}

/// The params of the lock methods.
#[schema]
struct LockParams {
    /// The path of the lock.
    path: String,
    /// How long to hold it, in milliseconds.
    #[serde(default)]
    hold_ms: u64,
}

/// The params of `serve` and `owner`.
#[schema]
struct PathParams {
    /// The path of the endpoint file.
    path: String,
}

/// The params of `client`.
#[schema]
struct ClientParams {
    /// The path of the endpoint file.
    path: String,
    /// The interface to expect; any when missing.
    interface: Option<String>,
    /// The calls to make on the connection, in order.
    calls: Vec<CallSpec>,
}

/// The params of `later`.
#[schema]
struct LaterParams {
    /// The file to write after the answer.
    path: String,
    /// How long to wait before writing, in milliseconds.
    ms: u64,
}

/// The params of `fail`.
#[schema]
struct FailParams {
    /// The error code.
    code: i64,
    /// The message.
    message: String,
}

/// A kind of thing, to see enums in schemas.
#[schema]
#[serde(rename_all = "snake_case")]
enum Kind {
    /// Small.
    Small,
    /// Large.
    LargeThing,
}

/// Shapes of the schema generator.
#[schema]
struct Shapes {
    /// A port.
    port: u16,
    /// A kind.
    kind: Kind,
    /// Names by id.
    names: BTreeMap<String, String>,
    /// An optional ratio.
    ratio: Option<f64>,
}

/// The params of `shapes`.
#[schema]
struct ShapesParams {
    /// The shapes.
    shapes: Shapes,
}

#[rpc(endpoints(counter = Counter))]
impl Probe {
    /// Return the params as they are.
    fn echo(&self, p: CallSpec) -> Result<CallSpec> {
        Ok(p)
    }

    /// Make one call and report its result and its notifications.
    ///
    /// Errors of the call are reported, not returned.
    async fn relay(&self, RelayParams { call: spec, detach }: RelayParams) -> Result<Relayed> {
        let notes = Rc::new(std::cell::RefCell::new(Vec::new()));
        let seen = notes.clone();
        let mut c = call(&spec.method, spec.params)
            .on_notify(move |name, params| seen.borrow_mut().push((name.to_string(), params)));
        if detach.unwrap_or(false) {
            c = c.detach();
        }
        let outcome = c.await;
        let notes = notes.borrow().clone();
        Ok(match outcome {
            Ok(v) => Relayed { result: Some(v), error: None, notes },
            Err(e) => Relayed { result: None, error: Some(e.to_json()), notes },
        })
    }

    /// Send `count` progress notifications to the caller, then answer.
    fn progress(&self, ctx: &Ctx, ProgressParams { count }: ProgressParams) -> Result<u32> {
        for i in 0..count {
            ctx.notify("progress", json!({"i": i}));
        }
        Ok(count)
    }

    /// Make all calls at the same time; return their results in order.
    async fn fanout(&self, FanoutParams { calls }: FanoutParams) -> Result<Vec<Value>> {
        let results = join_all(calls.into_iter().map(|c| call(&c.method, c.params))).await;
        results.into_iter().collect()
    }

    /// Sleep on the executor's timer, then answer with the time slept.
    async fn sleepy(&self, SleepParams { ms }: SleepParams) -> Result<u64> {
        sleep(Duration::from_millis(ms)).await;
        Ok(ms)
    }

    /// Take a lock if it is free now; hold it for `hold_ms`; answer whether it was held.
    async fn try_lock(&self, LockParams { path, hold_ms }: LockParams) -> Result<bool> {
        let Some(guard) = lock(&path).try_now().await? else {
            return Ok(false);
        };
        sleep(Duration::from_millis(hold_ms)).await;
        drop(guard);
        Ok(true)
    }

    /// Take a lock and keep it until the process ends, which is `hold_ms` after the answer.
    async fn keep_lock(&self, LockParams { path, hold_ms }: LockParams) -> Result<String> {
        lock(&path).await?.keep();
        background(sleep(Duration::from_millis(hold_ms)));
        Ok(pid())
    }

    /// Serve the `counter` endpoint at `path`; answer with this process's pid.
    async fn serve(&self, PathParams { path }: PathParams) -> Result<String> {
        listen(&path, Counter { total: Cell::new(0) }).await?;
        Ok(pid())
    }

    /// The owner of the endpoint at `path`.
    fn owner(&self, PathParams { path }: PathParams) -> Result<String> {
        endpoint_owner(&path)
    }

    /// Connect to an endpoint and make calls on it, in order; return their results.
    async fn client(
        &self,
        ClientParams { path, interface, calls }: ClientParams,
    ) -> Result<Vec<Value>> {
        let endpoint = match interface {
            Some(i) => connect_as(&path, &i).await?,
            None => connect(&path).await?,
        };
        let mut out = Vec::new();
        for c in calls {
            out.push(endpoint.call(&c.method, c.params).await?);
        }
        Ok(out)
    }

    /// Answer at once with `path`, then write it after `ms` in a background task.
    fn later(&self, LaterParams { path, ms }: LaterParams) -> Result<String> {
        let file = path.clone();
        background(async move {
            sleep(Duration::from_millis(ms)).await;
            if let Some(dir) = std::path::Path::new(&file).parent() {
                std::fs::create_dir_all(dir)?;
            }
            std::fs::write(&file, "done")
        });
        Ok(path)
    }

    /// Fail with the given code and message, with the params as data.
    fn fail(&self, FailParams { code, message }: FailParams) -> Result<()> {
        Err(Error::with_code(code, message.clone()).with_data(json!({"message": message})))
    }

    /// Return the shapes, to show their schema.
    fn shapes(&self, ShapesParams { shapes }: ShapesParams) -> Result<Shapes> {
        Ok(shapes)
    }

    /// Start a call, wait `ms`, then drop it (which cancels it); return how
    /// long the drop took in microseconds. Returns the call's result instead
    /// if it came first.
    async fn abandon(&self, AbandonParams { call: spec, ms }: AbandonParams) -> Result<Value> {
        let mut pending = Box::pin(call(&spec.method, spec.params));
        let deadline = std::time::Instant::now() + Duration::from_millis(ms);
        while std::time::Instant::now() < deadline {
            // Poll once (the first poll sends it), then sleep a little.
            let polled = std::future::poll_fn(|cx| {
                std::task::Poll::Ready(std::future::Future::poll(pending.as_mut(), cx))
            })
            .await;
            if let std::task::Poll::Ready(outcome) = polled {
                return Ok(json!({"answered": outcome.map_err(|e| e.to_json()).unwrap_or_else(|e| e)}));
            }
            sleep(Duration::from_millis(10)).await;
        }
        let t = std::time::Instant::now();
        drop(pending);
        Ok(json!({"dropped_us": t.elapsed().as_micros() as u64}))
    }

    /// Log structured events in spans, and a plain stderr line between them.
    fn log_events(&self, LogParams { user }: LogParams) -> Result<u32> {
        use sausage_plugin::log;
        log::debug!("starting", user = user);
        let _request = log::span!("request", user = user);
        log::info!("looked up the user", found = true, attempt = 1);
        eprintln!("a plain line");
        {
            let _db = log::span!("db");
            log::warn!(format!("slow query ({} ms)", 250), ms = 250, table = "notes");
        }
        log::error!("gave up", reason = "multi\nline");
        Ok(4)
    }
}

/// The params of `abandon`.
#[schema]
struct AbandonParams {
    /// The call to start and then drop.
    call: CallSpec,
    /// How long to wait before dropping it, in milliseconds.
    ms: u64,
}

/// The params of `log_events`.
#[schema]
struct LogParams {
    /// The user the events are about.
    user: u64,
}

/// The params of `add`.
#[schema]
struct AddParams {
    /// How much to add.
    n: u64,
}

/// A counter served on an endpoint.
struct Counter {
    /// The sum of everything added.
    total: Cell<u64>,
}

#[rpc]
impl Counter {
    /// Add `n`; return the new total.
    fn add(&self, AddParams { n }: AddParams) -> Result<u64> {
        self.total.set(self.total.get() + n);
        Ok(self.total.get())
    }

    /// The total, after a notification to the caller.
    fn total(&self, ctx: &Ctx) -> Result<u64> {
        ctx.notify("reading", json!({}));
        Ok(self.total.get())
    }

    /// Stop the server: the process ends after this answer.
    fn stop(&self) -> Result<()> {
        sausage_plugin::exit_after_response();
        Ok(())
    }
}

fn main() {
    sausage_plugin::run(Probe);
}
