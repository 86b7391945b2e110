/**
 * The control socket of a running host: JSON-RPC, one message per line, on a
 * Unix socket that only the world's owner can reach (`core/control/control_path.ts`:
 * a private folder outside the world, named by a hash of the world's path).
 * The CLI (`sausage call`, `ps`, …) and later the console connect here. A
 * connection is a caller named `console` (or `mcp`, when its `$/hello` says
 * `{"as": "mcp"}`: the MCP server, `mcp/`): its attached processes stop when
 * it closes. Methods under `$/` are host queries, not calls: `$/hello` (which
 * world), `$/ps` (the process table), `$/ls {path}` and `$/cat {path}` (the
 * filesystem as a process sees it).
 *
 * Users in this OS process (the console, a command's own host, the MCP
 * server's, the test runner) connect the same way over a transport in
 * memory (`link`), named by the process; what a connection's caller is and
 * how it ends is `control_session.ts`.
 *
 * The first line of every socket connection must be a `$/hello` request; anything
 * else (an HTTP request, a call) closes the connection before it is read any
 * further, so nothing is executed.
 *
 * `state/core/host.json` says that a host runs (its OS pid and start time);
 * it holds nothing that connects to it.
 *
 * @module
 */

import { ErrorCode } from "../../rpc/errors.ts";
import { LineWriter } from "../../rpc/line_channel.ts";
import { streamLines } from "../../rpc/line_splitter.ts";
import { errorResponse, lineId, parseLine } from "../../rpc/message.ts";
import { notUtf8Error } from "../../rpc/utf8_check.ts";
import { memoryTransportPair } from "../../rpc/memory_transport.ts";
import type { Transport } from "../../rpc/transport.ts";
import type { Host } from "../host.ts";
import { ControlSession } from "./control_session.ts";
import {
  controlSocketPath,
  ensurePrivateDir,
  HELLO,
  reportSquatter,
  runtimeDir,
} from "./control_path.ts";

/** What `state/core/host.json` holds: that a host runs, not how to reach it. */
export interface HostFile {
  pid: number;
  world: string;
  started: string;
}

/** A connection in memory: the client's end of its transport, and its caller on the host. */
export interface MemoryLink {
  /** The client's end: what it sends the host serves, as over the socket. */
  transport: Transport;
  /** The caller on the host's side (for what a wire cannot carry: spawning a command). */
  session: ControlSession;
}

/** An open connection: how to write out what was sent to it, and how to close it. */
interface Open {
  drain(): Promise<void>;
  shut(): void;
}

/**
 * Serves the clients of a host, over any transport: the control socket once
 * `listen` (or `start`) has opened it, and links in memory (`link`) for the
 * users in this OS process. Every `Host` has one (`Host.control`).
 */
export class ControlServer {
  private conns = new Set<Open>();
  /** The host's own links (`link(name, true)`): closed last, not waited for by `idle`. */
  private ownConns = new Set<Open>();
  private listener: Deno.UnixListener | null = null;
  /** The socket's path, once listening. */
  path = "";
  /** The socket file's inode: `close` removes the file only while it is still this one. */
  private ino: number | null = null;
  private listening = false;
  private closed: Promise<void> | null = null;
  private idleWaiters: (() => void)[] = [];

  /** @param host the host it serves */
  constructor(private host: Host) {}

  /** Opens the control socket of `host` (`listen`) and resolves with its server. */
  static async start(host: Host): Promise<ControlServer> {
    await host.control.listen();
    return host.control;
  }

  /**
   * A connection in memory named `name` (`SAUSAGE_PARENT` of its processes):
   * its messages are served as a socket's are, without `$/hello` first.
   * Closing either end ends the caller (`ControlSession.end`). `own`: the
   * host's own caller (the boot calls), which lasts as long as the host and
   * which `idle` does not wait for.
   */
  link(name: string, own = false): MemoryLink {
    const [client, server] = memoryTransportPair({ copy: false });
    const session = new ControlSession(this.host, (msg) => server.send(msg), name, true);
    const open: Open = { drain: () => Promise.resolve(), shut: () => server.close() };
    if (!own) this.conns.add(open);
    else this.ownConns.add(open);
    server.onmessage = (msg) => {
      if ("method" in msg) session.handle(msg);
    };
    server.onclose = () => {
      this.ownConns.delete(open);
      this.forget(open);
      session.end();
    };
    if (this.closed) server.close();
    server.start();
    return { transport: client, session };
  }

  /**
   * Listens on the world's control socket and writes the host file. Only the
   * holder of the world's lock (`host_lock.ts`: every `Host` holds it) gets
   * here, so a socket file found is a stale one of a host that is gone, and
   * is replaced; if something answers on it all the same, nothing is removed
   * and this throws.
   */
  async listen(): Promise<void> {
    const host = this.host;
    const dir = runtimeDir();
    reportSquatter(dir, (l) => console.error(l));
    ensurePrivateDir(dir);
    const path = await controlSocketPath(host.world.root);
    let live = false;
    try {
      (await Deno.connect({ transport: "unix", path })).close();
      live = true;
    } catch { /* no socket, or a stale one */ }
    if (live) {
      throw new Error(
        `another process serves the control socket of ${host.world.root} (${path}); ` +
          "it was left alone: stop that host first",
      );
    }
    try {
      Deno.removeSync(path);
    } catch { /* no stale socket */ }
    const listener = Deno.listen({ transport: "unix", path });
    Deno.chmodSync(path, 0o600);
    this.ino = Deno.lstatSync(path).ino;
    this.path = path;
    this.listener = listener;
    this.listening = true;
    const file: HostFile = {
      pid: Deno.pid,
      world: host.world.root,
      started: new Date().toISOString(),
    };
    const hostFile = host.world.hostFile();
    host.world.coreState();
    Deno.writeTextFileSync(`${hostFile}.tmp`, JSON.stringify(file) + "\n", { mode: 0o600 });
    Deno.renameSync(`${hostFile}.tmp`, hostFile);
    this.accept(listener);
  }

  private async accept(listener: Deno.UnixListener): Promise<void> {
    try {
      for await (const conn of listener) this.serve(conn);
    } catch { /* closed */ }
  }

  private forget(open: Open): void {
    if (!this.conns.delete(open)) return;
    if (this.conns.size === 0) { for (const w of this.idleWaiters.splice(0)) w(); }
  }

  private async serve(conn: Deno.UnixConn): Promise<void> {
    const maxQueue = this.host.limits.client_queue_mib;
    // A client that does not read its answers: what waits for it is bounded, then it is closed.
    const out = new LineWriter(conn.writable, {
      maxBytes: maxQueue * 2 ** 20,
      overflow: (queued) => {
        this.host.journal.coreEvent("limit", {
          limit: "client_queue_mib",
          value: maxQueue,
          queued_bytes: queued,
          caller: session.name,
        });
        open.shut();
      },
    });
    const open: Open = {
      drain: () => out.close(),
      shut: () => {
        try {
          conn.close();
        } catch { /* closed */ }
      },
    };
    this.conns.add(open);
    const session = new ControlSession(this.host, (msg) => out.send(msg));
    let greeted = false;
    try {
      const max = this.host.limits.line_mib * 2 ** 20;
      const tooLong = (seen: number) =>
        out.send(errorResponse(null, {
          code: ErrorCode.InvalidRequest,
          message: `a line of over ${seen} bytes was dropped: the limit is ${max} ` +
            `("line_mib" in config/limits.json)`,
        }));
      // Not UTF-8: -32700 with the bad byte's offset (never read with U+FFFD in its place).
      const notUtf8 = (offset: number, text: string) =>
        out.send(errorResponse(lineId(text), notUtf8Error(offset)));
      for await (const line of streamLines(conn.readable, max, tooLong, notUtf8)) {
        const parsed = parseLine(line);
        if (!greeted) {
          if (parsed.kind !== "request" || parsed.msg.method !== HELLO) {
            out.send(errorResponse(null, {
              code: ErrorCode.InvalidRequest,
              message: `the first message must be a ${HELLO} request; closing`,
            }));
            break;
          }
          greeted = true;
        }
        if (parsed.kind === "request") session.handle(parsed.msg);
        else if (parsed.kind === "invalid") {
          out.send(errorResponse(parsed.id, parsed.error));
        } else if (parsed.kind === "text") {
          out.send(
            errorResponse(null, { code: ErrorCode.ParseError, message: "not a JSON-RPC message" }),
          );
        }
      }
    } catch { /* connection reset */ }
    const ended = session.end();
    this.forget(open);
    if (!greeted) {
      await open.drain();
      open.shut();
    }
    await ended;
  }

  /**
   * Stops taking connections (the socket file goes: a command started now
   * waits for the world's lock instead); those already open go on.
   */
  stopListening(): void {
    if (!this.listening) return;
    this.listening = false;
    try {
      this.listener?.close();
    } catch { /* closed */ }
    this.removeOwnFiles();
  }

  /** Resolves once no connection is open (at once when none is). */
  idle(): Promise<void> {
    if (this.conns.size === 0) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }

  /** Removes the socket and the host file while they are still this server's. */
  private removeOwnFiles(): void {
    try {
      if (this.ino === null || Deno.lstatSync(this.path).ino === this.ino) {
        Deno.removeSync(this.path);
      }
    } catch { /* gone */ }
    try {
      const file = JSON.parse(Deno.readTextFileSync(this.host.world.hostFile())) as HostFile;
      if (file.pid === Deno.pid) Deno.removeSync(this.host.world.hostFile());
    } catch { /* gone */ }
  }

  /**
   * Stops listening, closes connections (after what was sent to them is
   * written, for up to a second) and removes the host file. `Host.shutdown`
   * calls it before the world's lock goes; calling it again does nothing.
   */
  close(): Promise<void> {
    return this.closed ??= this.closeNow();
  }

  private async closeNow(): Promise<void> {
    this.stopListening();
    const drained = Promise.all([...this.conns].map((c) => c.drain()));
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([drained, new Promise((r) => (timer = setTimeout(r, 1000)))]);
    clearTimeout(timer);
    for (const c of [...this.conns, ...this.ownConns]) c.shut();
  }
}
