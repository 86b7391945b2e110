//! Server-sent events (the `text/event-stream` format): lines in, events out.

/// One event: its `event:` name (empty without one) and its `data:` lines joined.
pub struct Event {
    /// The event's name.
    pub name: String,
    /// The event's data.
    pub data: String,
}

/// Collects the fields of the event being read.
#[derive(Default)]
pub struct Parser {
    name: String,
    data: Vec<String>,
}

impl Parser {
    /// Takes one line; returns the event that a blank line ends.
    pub fn line(&mut self, line: &str) -> Option<Event> {
        if line.is_empty() {
            return self.finish();
        }
        if line.starts_with(':') {
            return None; // a comment, e.g. a keep-alive
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line, ""),
        };
        match field {
            "event" => self.name = value.to_string(),
            "data" => self.data.push(value.to_string()),
            _ => {}
        }
        None
    }

    /// The event in progress at the end of the stream, if any.
    pub fn finish(&mut self) -> Option<Event> {
        let name = std::mem::take(&mut self.name);
        if self.data.is_empty() {
            return None;
        }
        Some(Event { name, data: std::mem::take(&mut self.data).join("\n") })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_end_at_blank_lines_and_join_data_lines() {
        let mut p = Parser::default();
        let mut events = Vec::new();
        for line in [": keep-alive", "event: a", "data: one", "data:two", "", "data: {}", ""] {
            events.extend(p.line(line));
        }
        assert_eq!(events.len(), 2);
        assert_eq!((events[0].name.as_str(), events[0].data.as_str()), ("a", "one\ntwo"));
        assert_eq!((events[1].name.as_str(), events[1].data.as_str()), ("", "{}"));
        assert!(p.finish().is_none());
    }
}
