/**
 * The host's and workers' NATS connection: the NATS project's own client
 * (`@nats-io/transport-node`, under Deno through `npm:`) behind the small
 * surface the rest of the code uses (DECISIONS.md, "NATS between
 * machines"). The official client brings server lists (a cluster's seeds,
 * and the servers it announces), reconnection with jitter, client pings (a
 * half-open link is noticed), headers and so "no responders" (a request to
 * a subject nobody hears fails at once), user/password or nkey
 * credentials, and drain. This wrapper adds what Sausage needs on top:
 * while the connection is down, publishing throws at once (a remote
 * placement fails fast instead of waiting in the client's reconnect
 * buffer), told by the client's status events; every subscription is made
 * again on a new connection; a permission error after connect (the server
 * refused a publish or a subscription) is reported to `onPermission`,
 * and a subscription it refused gets nothing.
 *
 * @module
 */

import type { NatsConnection, Subscription } from "@nats-io/transport-node";

/** The official client's module, loaded at the first connect: 70-75 ms of loading a host without `config/nats.json` never pays. */
type NatsLib = typeof import("@nats-io/transport-node");
let lib: NatsLib | undefined;

/** Loads the official client once. */
async function natsLib(): Promise<NatsLib> {
  return lib ??= await import("@nats-io/transport-node");
}

/** How to reach a NATS server. */
export interface NatsOptions {
  /**
   * `nats://host:port` (the default port is 4222), or several separated by
   * commas (a cluster's seeds); `tls://` turns on TLS.
   */
  url: string;
  /** The user of the credentials (with `password`). */
  user?: string;
  /** Its password. */
  password?: string;
  /** An nkey seed (`SU…`), instead of a user and password (`sausage workers add`). */
  nkeySeed?: string;
  /** The connection's name, as the server's monitoring shows it. */
  name?: string;
  /** The prefix of reply subjects (the connection's own: its credentials allow no other). */
  inboxPrefix: string;
  /** For a `tls://` URL: the CA certificates (PEM) to trust beside the system's. */
  caCerts?: string[];
  /** Told when the connection goes down (with why) or comes back (null). */
  onStatus?: (down: string | null) => void;
  /** Told when the server refused a publish or subscription after connect. */
  onPermission?: (refused: PermissionRefusal) => void;
}

/** A publish or subscription the server refused (a permission violation after connect). */
export interface PermissionRefusal {
  operation: "publish" | "subscription";
  subject: string;
  /** The server's words. */
  message: string;
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
  /** Its subscription on the current connection. */
  live?: Subscription;
}

/** Thrown when a publish or request cannot reach the server now. */
export class NatsDown extends Error {}

/** Whether `e` says the server refused the credentials. */
function isRefusal(e: unknown): boolean {
  return (lib !== undefined && e instanceof lib.AuthorizationError) ||
    /authoriz|authentic/i.test(e instanceof Error ? e.message : String(e));
}

/** A message's words, with its cause's when it has one. */
function why(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const cause = e.cause instanceof Error ? `: ${e.cause.message}` : "";
  return `${e.message}${cause}`;
}

/**
 * The official client's Node transport removes a socket's listeners between
 * its connect and its handshake (`node_transport.js`: `dial`, `peekInfo`):
 * a reset in that window (a loaded machine, a server that gave up waiting)
 * is emitted with no `error` listener, an uncaught exception that would end
 * the host or the worker. Such an error (a read or write of a socket reset
 * or timed out) is not fatal: the client's connect times out and is tried
 * again. Installed once, when this module loads.
 */
function keepSocketResets(): void {
  const codes = new Set(["ECONNRESET", "EPIPE", "ETIMEDOUT"]);
  globalThis.addEventListener("error", (e) => {
    const err = e.error as { code?: unknown; syscall?: unknown } | null;
    if (
      err && codes.has(err.code as string) && (err.syscall === "read" || err.syscall === "write")
    ) {
      e.preventDefault();
    }
  });
}
keepSocketResets();

/** One connection to NATS, kept up (through the official client's reconnects) until `close()`. */
export class NatsClient {
  private nc: NatsConnection | null = null;
  private subs = new Map<number, Sub>();
  private nextSid = 0;
  private closed = false;
  private ready: Promise<void>;
  private up!: () => void;
  private refused!: (e: Error) => void;
  /** Rejects when the server refuses the credentials before the first connection. */
  readonly refusal: Promise<never>;
  /** Why the connection is down, or null while it is up. */
  down: string | null = "connecting";
  /** The most bytes one message may carry (the server's `max_payload`). */
  maxPayload = 1 << 20;

  private constructor(private opts: NatsOptions) {
    this.ready = new Promise((r) => (this.up = r));
    this.refusal = new Promise((_, reject) => (this.refused = reject));
    this.refusal.catch(() => {});
  }

  /**
   * Connects, resolving once the server has accepted the credentials; keeps
   * the connection up in the background after that. Rejects when the first
   * attempts fail within `waitMs` (a wrong password, no server).
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

  /**
   * Resolves once the server has accepted the credentials (at once when it
   * has); rejects when it refuses them. Waits as long as that takes.
   */
  whenUp(): Promise<void> {
    return Promise.race([this.ready, this.refusal]);
  }

  /** Starts connecting and returns at once: publishing throws until the server has accepted. */
  static open(opts: NatsOptions): NatsClient {
    const c = new NatsClient(opts);
    c.loop();
    return c;
  }

  /** The official client's options from ours. */
  private options(nats: NatsLib) {
    const urls = this.opts.url.split(",").map((u) => u.trim()).filter(Boolean);
    const tls = urls.some((u) => u.startsWith("tls://"));
    const o = this.opts;
    return {
      servers: urls.map((u) => u.replace(/^(nats|tls):\/\//, "")),
      name: o.name,
      inboxPrefix: o.inboxPrefix,
      authenticator: o.nkeySeed
        ? nats.nkeyAuthenticator(new TextEncoder().encode(o.nkeySeed))
        : o.user !== undefined
        ? nats.usernamePasswordAuthenticator(o.user, o.password)
        : undefined,
      tls: tls ? (o.caCerts?.length ? { ca: o.caCerts.join("\n") } : {}) : undefined,
      // Reconnects forever, 250 ms apart with up to 250 ms of jitter (a fleet
      // of workers does not come back in step).
      maxReconnectAttempts: -1,
      reconnectTimeWait: 250,
      reconnectJitter: 250,
      reconnectJitterTLS: 500,
      // A half-open link is noticed within about 10 s.
      pingInterval: 3000,
      maxPingOut: 3,
      timeout: 5000,
      noEcho: false,
    };
  }

  /**
   * Connects again and again until `close()`: the official client keeps a
   * connection up through its own reconnects; when it gives up (credentials
   * refused twice), a new one is made after a pause with jitter.
   */
  private async loop(): Promise<void> {
    let delay = 100;
    while (!this.closed) {
      let nc: NatsConnection;
      try {
        const nats = await natsLib();
        nc = await nats.connect(this.options(nats));
      } catch (e) {
        const text = why(e);
        if (isRefusal(e)) this.refused(new Error(`NATS at ${this.opts.url}: ${text}`));
        this.setDown(text);
        await new Promise((r) => setTimeout(r, delay + Math.random() * delay));
        delay = Math.min(delay * 2, 2000);
        continue;
      }
      delay = 100;
      if (this.closed) {
        await nc.close().catch(() => {});
        break;
      }
      this.attach(nc);
      const err = await nc.closed();
      if (this.nc === nc) this.nc = null;
      for (const s of this.subs.values()) s.live = undefined;
      if (this.closed) break;
      this.setDown(err ? why(err) : "the connection closed");
    }
  }

  /** Takes a new connection: its subscriptions, its status events, and up. */
  private attach(nc: NatsConnection): void {
    this.nc = nc;
    this.maxPayload = nc.info?.max_payload ?? this.maxPayload;
    for (const s of this.subs.values()) this.subscribeOn(nc, s);
    (async () => {
      for await (const s of nc.status()) {
        if (s.type === "disconnect" || s.type === "staleConnection") {
          this.setDown(s.type === "disconnect" ? `disconnected from ${s.server}` : "no PONG");
        } else if (s.type === "reconnect") {
          this.maxPayload = nc.info?.max_payload ?? this.maxPayload;
          this.setUp();
        } else if (s.type === "error" && s.error instanceof lib!.PermissionViolationError) {
          const e = s.error;
          this.opts.onPermission?.({
            operation: e.operation,
            subject: e.subject,
            message: e.message,
          });
        }
      }
    })().catch(() => {});
    this.setUp();
  }

  private setUp(): void {
    const was = this.down;
    this.down = null;
    this.up();
    if (was !== null && was !== "connecting") this.opts.onStatus?.(null);
  }

  private setDown(why: string): void {
    const was = this.down;
    this.down = why;
    if (was === null) this.opts.onStatus?.(why);
  }

  private subscribeOn(nc: NatsConnection, s: Sub): void {
    try {
      s.live = nc.subscribe(s.subject, {
        queue: s.queue,
        callback: (err, m) => {
          if (err) return; // refused: told through `onPermission`
          try {
            s.handler({ subject: m.subject, reply: m.reply || undefined, data: m.data });
          } catch { /* a handler's fault is its own */ }
        },
      });
    } catch { /* closed meanwhile: the next connection subscribes */ }
  }

  private live(): NatsConnection {
    if (this.closed || this.nc === null || this.down !== null) {
      throw new NatsDown(`NATS is unreachable (${this.down ?? "closed"})`);
    }
    return this.nc;
  }

  /** Publishes `data` on `subject`; throws `NatsDown` while disconnected. */
  publish(subject: string, data: Uint8Array | string, reply?: string): void {
    const nc = this.live();
    try {
      nc.publish(subject, data, reply ? { reply } : undefined);
    } catch (e) {
      throw new NatsDown(`NATS would not take a message on ${subject}: ${why(e)}`);
    }
  }

  /** Subscribes (in `queue`'s group if given); returns a function that unsubscribes. */
  subscribe(subject: string, handler: (msg: NatsMsg) => void, queue?: string): () => void {
    const sid = ++this.nextSid;
    const s: Sub = { subject, queue, handler };
    this.subs.set(sid, s);
    if (this.nc) this.subscribeOn(this.nc, s);
    return () => {
      if (!this.subs.delete(sid)) return;
      try {
        s.live?.unsubscribe();
      } catch { /* closed */ }
    };
  }

  /**
   * Resolves once the server has read everything this client wrote before
   * (a PING answered by its PONG): a subscription made before it is live, so
   * a message another client publishes afterwards reaches it. Rejects at once
   * when down, or after `timeoutMs`.
   */
  async flush(timeoutMs = 10_000): Promise<void> {
    const nc = this.live();
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      await Promise.race([
        nc.flush(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`no PONG from NATS within ${timeoutMs} ms`)),
            timeoutMs,
          );
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Sends a request and waits for one reply; rejects after `timeoutMs`, at
   * once when down, and at once when nobody listens on `subject` (the
   * server's "no responders").
   */
  async request(subject: string, data: Uint8Array | string, timeoutMs: number): Promise<NatsMsg> {
    const nc = this.live();
    try {
      const m = await nc.request(subject, data, { timeout: timeoutMs });
      return { subject: m.subject, reply: m.reply || undefined, data: m.data };
    } catch (e) {
      const text = why(e);
      if (/timeout/i.test(text)) throw new Error(`no reply on ${subject} within ${timeoutMs} ms`);
      throw new Error(`a request on ${subject} failed: ${text}`);
    }
  }

  /**
   * Ends the connection gently: subscriptions stop taking messages, those
   * already in hand are handled and what was published is sent first.
   */
  async drain(): Promise<void> {
    const nc = this.nc;
    this.closed = true;
    this.down = "closed";
    await nc?.drain().catch(() => {});
  }

  /** Closes the connection for good. */
  close(): void {
    this.closed = true;
    this.down = "closed";
    this.nc?.close().catch(() => {});
    this.nc = null;
  }
}
