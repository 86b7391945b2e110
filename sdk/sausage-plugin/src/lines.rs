//! Line framing: the protocol sends one JSON message per line (section 4.1),
//! on stdin and on endpoint connections alike.

/// Collects bytes and hands out complete lines, without their line ends.
#[derive(Default)]
pub(crate) struct LineBuffer {
    pending: Vec<u8>,
}

impl LineBuffer {
    /// Adds bytes; returns the lines they complete (`\n` or `\r\n` ends).
    pub(crate) fn push(&mut self, bytes: &[u8]) -> Vec<String> {
        let mut lines = Vec::new();
        let mut rest = bytes;
        while let Some(i) = rest.iter().position(|&b| b == b'\n') {
            self.pending.extend_from_slice(&rest[..i]);
            rest = &rest[i + 1..];
            let mut line = std::mem::take(&mut self.pending);
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            lines.push(String::from_utf8_lossy(&line).into_owned());
        }
        self.pending.extend_from_slice(rest);
        lines
    }

    /// The last line, when the stream ended without a line end.
    pub(crate) fn finish(&mut self) -> Option<String> {
        if self.pending.is_empty() {
            return None;
        }
        Some(String::from_utf8_lossy(&std::mem::take(&mut self.pending)).into_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::LineBuffer;

    #[test]
    fn splits_lines_across_chunks() {
        let mut b = LineBuffer::default();
        assert_eq!(b.push(b"{\"a\":1}\n{\"b\""), vec!["{\"a\":1}"]);
        assert_eq!(b.push(b":2}\r\n\n"), vec!["{\"b\":2}", ""]);
        assert_eq!(b.push(b"tail"), Vec::<String>::new());
        assert_eq!(b.finish().as_deref(), Some("tail"));
        assert_eq!(b.finish(), None);
    }
}
