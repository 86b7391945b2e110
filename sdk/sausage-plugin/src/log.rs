//! Structured logging, like `tracing`: events with a level, a message and
//! fields, inside spans. The journal keeps each event's level, message,
//! fields and span as columns (PROTOCOL 8), so `sausage log --level warn
//! --field user=7` finds them; plain `eprintln!` lines keep working beside
//! them.
//!
//! ```ignore
//! use sausage_plugin::log;
//!
//! let _span = log::span!("import", file = "/state/a.csv");
//! log::info!("read the file", rows = 120);
//! log::warn!("a row has no date", row = 17);
//! ```
//!
//! Each event is one line on stderr: the byte `0x1E` (ASCII record
//! separator), then `{"level", "message", "fields"?, "span"?}`. The span is
//! the names of the open spans, outermost first, joined by `:`; their fields
//! are merged into the event's (the event's own win).
//!
//! A span lasts while its guard lives. Spans are per thread, and the SDK's
//! executor runs every task on one thread: keep a span's guard inside one
//! task's synchronous section, or the events of other tasks that run while
//! it is open show it too.

use serde_json::{Map, Value};
use std::cell::RefCell;
use std::io::Write;

/// The byte that starts an event line on stderr.
pub const MARKER: char = '\u{1e}';

/// How important an event is, least first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// Very detailed tracing.
    Trace,
    /// What helps to debug.
    Debug,
    /// What happened.
    Info,
    /// Something odd that the plugin handled.
    Warn,
    /// Something failed.
    Error,
}

impl Level {
    /// The level's name in the journal: `trace`, `debug`, `info`, `warn`, `error`.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Trace => "trace",
            Level::Debug => "debug",
            Level::Info => "info",
            Level::Warn => "warn",
            Level::Error => "error",
        }
    }
}

thread_local! {
    static SPANS: RefCell<Vec<(String, Vec<(&'static str, Value)>)>> = const { RefCell::new(Vec::new()) };
}

/// Emits one event: what the macros ([`info!`](crate::log::info) and the
/// others) call.
pub fn event(level: Level, message: &str, fields: &[(&'static str, Value)]) {
    let mut all = Map::new();
    let span = SPANS.with(|s| {
        let spans = s.borrow();
        for (_, span_fields) in spans.iter() {
            for (k, v) in span_fields {
                all.insert((*k).to_string(), v.clone());
            }
        }
        spans.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>().join(":")
    });
    for (k, v) in fields {
        all.insert((*k).to_string(), v.clone());
    }
    let mut line = Map::new();
    line.insert("level".into(), Value::from(level.as_str()));
    line.insert("message".into(), Value::from(message));
    if !all.is_empty() {
        line.insert("fields".into(), Value::Object(all));
    }
    if !span.is_empty() {
        line.insert("span".into(), Value::from(span));
    }
    let text = format!("{MARKER}{}\n", Value::Object(line));
    // One write of the whole line, so that lines never interleave.
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
}

/// An open span: events emitted while it lives carry its name and fields.
/// It closes when dropped. Made by [`span!`](crate::log::span).
#[must_use = "a span closes when its guard is dropped: keep it in a variable (`let _span = …`)"]
pub struct SpanGuard {
    depth: usize,
}

/// Opens a span: what [`span!`](crate::log::span) calls.
pub fn enter(name: &str, fields: Vec<(&'static str, Value)>) -> SpanGuard {
    SPANS.with(|s| {
        let mut spans = s.borrow_mut();
        spans.push((name.to_string(), fields));
        SpanGuard { depth: spans.len() }
    })
}

impl Drop for SpanGuard {
    fn drop(&mut self) {
        // Closes this span and any opened inside it that is still open.
        SPANS.with(|s| s.borrow_mut().truncate(self.depth - 1));
    }
}

/// Emits an event at a level: `log::event!(Level::Info, "message", key = value, …)`.
#[doc(hidden)]
#[macro_export]
macro_rules! __log_event {
    ($level:expr, $msg:expr $(, $key:ident = $value:expr)* $(,)?) => {
        $crate::log::event(
            $level,
            &::std::string::ToString::to_string(&$msg),
            &[$((::std::stringify!($key), $crate::serde_json::json!($value))),*],
        )
    };
}

/// Emits an `error` event: `log::error!("message", key = value, …)`. The
/// message is anything that implements `Display`; each value anything that
/// `serde_json::json!` takes.
#[doc(hidden)]
#[macro_export]
macro_rules! __log_error {
    ($($t:tt)*) => { $crate::__log_event!($crate::log::Level::Error, $($t)*) };
}

/// Emits a `warn` event: `log::warn!("message", key = value, …)`.
#[doc(hidden)]
#[macro_export]
macro_rules! __log_warn {
    ($($t:tt)*) => { $crate::__log_event!($crate::log::Level::Warn, $($t)*) };
}

/// Emits an `info` event: `log::info!("message", key = value, …)`.
#[doc(hidden)]
#[macro_export]
macro_rules! __log_info {
    ($($t:tt)*) => { $crate::__log_event!($crate::log::Level::Info, $($t)*) };
}

/// Emits a `debug` event: `log::debug!("message", key = value, …)`.
#[doc(hidden)]
#[macro_export]
macro_rules! __log_debug {
    ($($t:tt)*) => { $crate::__log_event!($crate::log::Level::Debug, $($t)*) };
}

/// Emits a `trace` event: `log::trace!("message", key = value, …)`.
#[doc(hidden)]
#[macro_export]
macro_rules! __log_trace {
    ($($t:tt)*) => { $crate::__log_event!($crate::log::Level::Trace, $($t)*) };
}

/// Opens a span: `let _span = log::span!("name", key = value, …);`. Events
/// emitted while the guard lives carry the span's name and its fields.
#[doc(hidden)]
#[macro_export]
macro_rules! __log_span {
    ($name:expr $(, $key:ident = $value:expr)* $(,)?) => {
        $crate::log::enter(
            &::std::string::ToString::to_string(&$name),
            ::std::vec![$((::std::stringify!($key), $crate::serde_json::json!($value))),*],
        )
    };
}

pub use crate::__log_debug as debug;
pub use crate::__log_error as error;
pub use crate::__log_event as event;
pub use crate::__log_info as info;
pub use crate::__log_span as span;
pub use crate::__log_trace as trace;
pub use crate::__log_warn as warn;
