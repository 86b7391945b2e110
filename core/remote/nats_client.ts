/**
 * A small NATS client over TCP (`Deno.connect`): the text protocol's
 * INFO/CONNECT/PUB/SUB/UNSUB/MSG/PING/PONG, user and password, request and
 * reply through one inbox subscription, and reconnection: while the server
 * is away, publishing throws at once (a remote placement fails fast), and
 * every subscription is made again when it returns. No headers, no
 * JetStream: the host and its workers need nothing more (DECISIONS.md,
 * "NATS between machines").
 *
 * @module
 */

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const CRLF = encoder.encode("\r\n");

/** How to reach a NATS server. */
export interface NatsOptions {
  /** `nats://host:port` (the default port is 4222). */
  url: string;
  /** The user of the world's credentials. */
  user?: string;
  /** Its password. */
  password?: string;
  /** The connection's name, as the server's monitoring shows it. */
  name?: string;
  /**
   * The prefix of reply subjects (a world's own: its credentials allow no
   * other); `<prefix>.<random>.<n>`.
   */
  inboxPrefix: string;
  /** For a `tls://` URL: the CA certificates (PEM) to trust beside the system's. */
  caCerts?: string[];
  /** The most bytes waiting to be written before `publish` throws (default 64 MiB). */
  maxPending?: number;
  /** Told when the connection goes down (with why) or comes back (null). */
  onStatus?: (down: string | null) => void;
}

/** A message received on a subscription. */
export interface NatsMsg {
  subject: string;
  /** Where a reply goes, if the sender asked for one. */
  reply?: string;
  data: Uint8Array;
}

interface Sub {
  subject: string;
  queue?: string;
  handler: (msg: NatsMsg) => void;
}

/** Thrown when a publish or request cannot reach the server now. */
export class NatsDown extends Error {}

/** Splits `nats://host:port` (or `tls://`) into what `Deno.connect` takes. */
function address(url: string): { hostname: string; port: number; tls: boolean } {
  const u = new URL(url.includes("://") ? url : `nats://${url}`);
  return {
    hostname: u.hostname || "127.0.0.1",
    port: Number(u.port || 4222),
    tls: u.protocol === "tls:",
  };
}

/** One connection to a NATS server, kept up until `close()`. */
export class NatsClient {
  private conn: Deno.Conn | null = null;
  private subs = new Map<number, Sub>();
  private nextSid = 0;
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;
  private writing = false;
  private closed = false;
  private inbox: string;
  private replies = new Map<string, (msg: NatsMsg) => void>();
  /** What waits for the server's PONG to a `flush`'s PING, in the order they were sent. */
  private pongs: (() => void)[] = [];
  private nextReply = 0;
  private ready: Promise<void>;
  private up!: () => void;
  /** Rejects the first connection when the server refuses the credentials. */
  private refused!: (e: Error) => void;
  /** Rejects when the server refuses the credentials before the first connection. */
  readonly refusal: Promise<never>;
  /** Why the connection is down, or null while it is up. */
  down: string | null = "connecting";
  /** The most bytes one message may carry (the server's `max_payload`). */
  maxPayload = 1 << 20;

  private constructor(private opts: NatsOptions) {
    this.inbox = `${opts.inboxPrefix}.${crypto.randomUUID().replaceAll("-", "")}`;
    this.ready = new Promise((r) => (this.up = r));
    this.refusal = new Promise((_, reject) => (this.refused = reject));
    this.refusal.catch(() => {});
    this.subs.set(++this.nextSid, {
      subject: `${this.inbox}.*`,
      handler: (msg) => {
        const waiter = this.replies.get(msg.subject);
        this.replies.delete(msg.subject);
        waiter?.(msg);
      },
    });
  }

  /**
   * Connects, resolving once the server has accepted the credentials; keeps
   * trying in the background after that. Rejects when the first attempt
   * fails within `waitMs` (a wrong password, no server).
   */
  static async connect(opts: NatsOptions, waitMs = 5000): Promise<NatsClient> {
    const c = NatsClient.open(opts);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`NATS at ${opts.url}: ${c.down ?? "no answer"}`)),
        waitMs,
      );
    });
    try {
      await Promise.race([c.ready, late, c.refusal]);
    } catch (e) {
      c.close();
      throw e;
    } finally {
      clearTimeout(timer);
    }
    return c;
  }

  /** Starts connecting and returns at once: publishing throws until the server has accepted. */
  static open(opts: NatsOptions): NatsClient {
    const c = new NatsClient(opts);
    c.loop();
    return c;
  }

  private async loop(): Promise<void> {
    let delay = 100;
    while (!this.closed) {
      try {
        const [conn, head] = await this.dial();
        await this.session(conn, head);
        delay = 100;
      } catch (e) {
        const why = e instanceof Error ? e.message : String(e);
        if (/authoriz|authentic/i.test(why)) {
          this.refused(new Error(`NATS at ${this.opts.url}: ${why}`));
        }
        this.setDown(why);
      }
      if (this.closed) break;
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, 1000);
    }
  }

  /**
   * A connection to the server, and what was read of it already. For a
   * `tls://` URL, the server's INFO line arrives in the clear and the
   * connection turns to TLS before anything is sent (NATS's own upgrade).
   */
  private async dial(): Promise<[Deno.Conn, Uint8Array]> {
    const { hostname, port, tls } = address(this.opts.url);
    const conn = await Deno.connect({ hostname, port });
    conn.setNoDelay(true);
    if (!tls) return [conn, new Uint8Array(0)];
    let head: Uint8Array = new Uint8Array(0);
    while (indexOfCrlf(head, 0) < 0) {
      const chunk = new Uint8Array(4096);
      const n = await conn.read(chunk);
      if (n === null) throw new Error("the server closed the connection");
      head = concat([head, chunk.subarray(0, n)]);
      if (head.length > 64 * 1024) throw new Error("the server's INFO line is too long");
    }
    return [await Deno.startTls(conn, { hostname, caCerts: this.opts.caCerts }), head];
  }

  private setDown(why: string): void {
    const was = this.down;
    this.down = why;
    this.conn = null;
    this.pending = [];
    this.pendingBytes = 0;
    if (was === null) this.opts.onStatus?.(why);
  }

  /** One connection's life: handshake, subscriptions, then reading until it closes. */
  private async session(conn: Deno.Conn, head: Uint8Array): Promise<void> {
    let buf: Uint8Array = head;
    let authed = false;
    const reader = conn.readable.getReader();
    try {
      for (let first = true;; first = false) {
        if (!first || !buf.length) {
          const { value, done } = await reader.read();
          if (done) throw new Error("the server closed the connection");
          buf = buf.length ? concat([buf, value]) : value;
        }
        let at = 0;
        for (;;) {
          const eol = indexOfCrlf(buf, at);
          if (eol < 0) break;
          const line = decoder.decode(buf.subarray(at, eol));
          if (line.startsWith("MSG ")) {
            const parts = line.split(" ");
            const size = Number(parts[parts.length - 1]);
            if (buf.length < eol + 2 + size + 2) break; // wait for the payload
            const data = buf.slice(eol + 2, eol + 2 + size);
            at = eol + 2 + size + 2;
            const sub = this.subs.get(Number(parts[2]));
            const reply = parts.length === 5 ? parts[3] : undefined;
            try {
              sub?.handler({ subject: parts[1], reply, data });
            } catch { /* a handler's fault is its own */ }
            continue;
          }
          at = eol + 2;
          if (line.startsWith("INFO ")) {
            const info = JSON.parse(line.slice(5));
            if (typeof info.max_payload === "number") this.maxPayload = info.max_payload;
            if (!authed) this.handshake(conn);
          } else if (line === "PING") this.raw(conn, "PONG\r\n");
          else if (line === "PONG" && !authed) {
            authed = true;
            this.conn = conn;
            const was = this.down;
            this.down = null;
            this.writePending();
            this.up();
            if (was !== null && was !== "connecting") this.opts.onStatus?.(null);
          } else if (line === "PONG") this.pongs.shift()?.();
          else if (line.startsWith("-ERR")) {
            if (!authed || /authoriz|authentic/i.test(line)) throw new Error(line.slice(5));
          }
        }
        buf = at ? buf.slice(at) : buf;
      }
    } finally {
      try {
        conn.close();
      } catch { /* closed */ }
      if (this.conn === conn || !authed) this.conn = null;
      this.pongs = []; // their PINGs went with the connection: their timers reject them
    }
  }

  private handshake(conn: Deno.Conn): void {
    const connect = {
      verbose: false,
      pedantic: false,
      lang: "sausage",
      version: "1",
      protocol: 1,
      name: this.opts.name,
      user: this.opts.user,
      pass: this.opts.password,
    };
    let text = `CONNECT ${JSON.stringify(connect)}\r\n`;
    for (const [sid, s] of this.subs) {
      text += `SUB ${s.subject}${s.queue ? ` ${s.queue}` : ""} ${sid}\r\n`;
    }
    this.raw(conn, text + "PING\r\n");
  }

  private raw(conn: Deno.Conn, text: string): void {
    this.pending.unshift(encoder.encode(text));
    this.writeOut(conn);
  }

  private writePending(): void {
    if (this.conn) this.writeOut(this.conn);
  }

  private async writeOut(conn: Deno.Conn): Promise<void> {
    if (this.writing) return;
    this.writing = true;
    try {
      while (this.pending.length) {
        const chunk = concat(this.pending);
        this.pending = [];
        this.pendingBytes = 0;
        let n = 0;
        while (n < chunk.length) n += await conn.write(chunk.subarray(n));
      }
    } catch {
      /* the read side notices */
    } finally {
      this.writing = false;
    }
  }

  /** Publishes `data` on `subject`; throws `NatsDown` while disconnected or too far behind. */
  publish(subject: string, data: Uint8Array | string, reply?: string): void {
    if (this.closed || this.conn === null) {
      throw new NatsDown(`NATS is unreachable (${this.down ?? "closed"})`);
    }
    const bytes = typeof data === "string" ? encoder.encode(data) : data;
    const max = this.opts.maxPending ?? 64 * 2 ** 20;
    if (this.pendingBytes + bytes.length > max) {
      throw new NatsDown(`NATS is too slow: ${this.pendingBytes} bytes wait to be written`);
    }
    const head = encoder.encode(`PUB ${subject}${reply ? ` ${reply}` : ""} ${bytes.length}\r\n`);
    this.pending.push(head, bytes, CRLF);
    this.pendingBytes += head.length + bytes.length + 2;
    if (this.pending.length === 3) queueMicrotask(() => this.writePending());
  }

  /** Subscribes (in `queue`'s group if given); returns a function that unsubscribes. */
  subscribe(subject: string, handler: (msg: NatsMsg) => void, queue?: string): () => void {
    const sid = ++this.nextSid;
    this.subs.set(sid, { subject, queue, handler });
    if (this.conn) this.raw(this.conn, `SUB ${subject}${queue ? ` ${queue}` : ""} ${sid}\r\n`);
    return () => {
      if (!this.subs.delete(sid)) return;
      if (this.conn) this.raw(this.conn, `UNSUB ${sid}\r\n`);
    };
  }

  /**
   * Resolves once the server has read everything this client wrote before
   * (a PING answered by its PONG): a subscription made before it is live, so
   * a message another client publishes afterwards reaches it. Rejects at once
   * when down, or after `timeoutMs` (a connection lost meanwhile).
   */
  flush(timeoutMs = 10_000): Promise<void> {
    if (this.closed || this.conn === null) {
      return Promise.reject(new NatsDown(`NATS is unreachable (${this.down ?? "closed"})`));
    }
    return new Promise((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        const at = this.pongs.indexOf(done);
        if (at >= 0) this.pongs.splice(at, 1);
        reject(new Error(`no PONG from NATS within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pongs.push(done);
      // After what waits to be written (a SUB goes to the front of it).
      this.pending.push(encoder.encode("PING\r\n"));
      queueMicrotask(() => this.writePending());
    });
  }

  /** Sends a request and waits for one reply; rejects after `timeoutMs` or at once when down. */
  request(subject: string, data: Uint8Array | string, timeoutMs: number): Promise<NatsMsg> {
    const reply = `${this.inbox}.${++this.nextReply}`;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.replies.delete(reply);
        reject(new Error(`no reply on ${subject} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.replies.set(reply, (msg) => {
        clearTimeout(timer);
        resolve(msg);
      });
      try {
        this.publish(subject, data, reply);
      } catch (e) {
        clearTimeout(timer);
        this.replies.delete(reply);
        reject(e);
      }
    });
  }

  /** Closes the connection for good. */
  close(): void {
    this.closed = true;
    try {
      this.conn?.close();
    } catch { /* closed */ }
    this.conn = null;
    this.down = "closed";
  }
}

function concat(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0];
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  n = 0;
  for (const p of parts) {
    out.set(p, n);
    n += p.length;
  }
  return out;
}

function indexOfCrlf(buf: Uint8Array, from: number): number {
  for (let i = from; i + 1 < buf.length; i++) {
    if (buf[i] === 13 && buf[i + 1] === 10) return i;
  }
  return -1;
}
