/**
 * A bound on what waits for an HTTP client that does not read its stream.
 * The SDK's Streamable HTTP transport pushes each SSE event into the
 * response's stream whatever the client has read (`controller.enqueue`
 * heeds no backpressure), so a client that stops reading grew the process
 * without bound. The response's body is read here at once and handed to
 * the HTTP server as it asks for it; what waits between the two is counted
 * and bounded (`client_queue_mib`).
 *
 * @module
 */

/**
 * Wraps `inner` so that at most `maxBytes` wait for the reader (one chunk
 * longer still goes when nothing waits). Past it, `overflow` hears how many
 * bytes waited, `inner` is cancelled and the stream ends with an error.
 */
export function boundedBody(
  inner: ReadableStream<Uint8Array>,
  maxBytes: number,
  overflow: (queuedBytes: number) => void,
): ReadableStream<Uint8Array> {
  const reader = inner.getReader();
  const chunks: Uint8Array[] = [];
  let queued = 0;
  let ended = false;
  let overflowed = false;
  let wake: (() => void) | null = null;
  const notify = () => {
    wake?.();
    wake = null;
  };
  (async () => {
    try {
      for (;;) {
        const r = await reader.read();
        if (r.done) break;
        if (queued > 0 && queued + r.value.length > maxBytes) {
          overflowed = true;
          overflow(queued + r.value.length);
          chunks.length = 0;
          queued = 0;
          reader.cancel().catch(() => {});
          break;
        }
        chunks.push(r.value);
        queued += r.value.length;
        notify();
      }
    } catch { /* the inner stream failed: end here too */ }
    ended = true;
    notify();
  })();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      while (chunks.length === 0 && !ended) await new Promise<void>((r) => (wake = r));
      const chunk = chunks.shift();
      if (chunk) {
        queued -= chunk.length;
        controller.enqueue(chunk);
      } else if (overflowed) {
        controller.error(new Error("the client did not read: past client_queue_mib"));
      } else controller.close();
    },
    cancel(reason) {
      reader.cancel(reason).catch(() => {});
    },
  }, { highWaterMark: 0 });
}
