/**
 * The control socket of a running host: JSON-RPC, one message per line, on a
 * Unix socket that only the world's owner can reach (`core/control_path.ts`:
 * a private folder outside the world, named by a hash of the world's path).
 * The CLI (`sausage call`, `ps`, …) and later the console connect here. A
 * connection is a caller named `console` (or `mcp`, when its `$/hello` says
 * `{"as": "mcp"}`: the MCP server, `mcp/`): its attached processes stop when
 * it closes. Methods under `$/` are host queries, not calls: `$/hello` (which
 * world), `$/ps` (the process table), `$/ls {path}` and `$/cat {path}` (the
 * filesystem as a process sees it).
 *
 * The first line of every connection must be a `$/hello` request; anything
 * else (an HTTP request, a call) closes the connection before it is read any
 * further, so nothing is executed.
 *
 * `state/core/host.json` says that a host runs (its OS pid and start time);
 * it holds nothing that connects to it.
 *
 * @module
 */

import { ErrorCode, toErrorObject } from "../rpc/errors.ts";
import { LineWriter } from "../rpc/line_channel.ts";
import { streamLines } from "../rpc/line_splitter.ts";
import { errorResponse, type Message, parseLine, type Request, response } from "../rpc/message.ts";
import { optionalParam } from "../rpc/params.ts";
import type { Host } from "./host.ts";
import type { Caller, Process } from "./process.ts";
import { toBase64 } from "../rpc/base64.ts";
import { statToWire } from "../vfs/wire.ts";
import { FsError } from "../vfs/mount.ts";
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

/** The names a connection may call itself in `$/hello {"as"}`: its processes' `SAUSAGE_PARENT`. */
const CONNECTION_NAMES = ["console", "mcp"];

class Connection implements Caller {
  name = "console";
  readonly children = new Set<Process>();
  hasEnded = false;
  constructor(private out: LineWriter) {}
  deliver(msg: Message): void {
    if (!this.hasEnded) this.out.send(msg);
  }
}

/** Serves the control socket of a host until `close`. */
export class ControlServer {
  private conns = new Map<Deno.UnixConn, LineWriter>();
  private listening = true;
  private closed: Promise<void> | null = null;
  private idleWaiters: (() => void)[] = [];

  private constructor(
    private host: Host,
    private listener: Deno.UnixListener,
    /** The socket's path. */
    readonly path: string,
    /** The socket file's inode: `close` removes the file only while it is still this one. */
    private ino: number | null,
  ) {
    host.serving(this);
    this.accept();
  }

  /**
   * Listens on the world's control socket and writes the host file. Only the
   * holder of the world's lock (`host_lock.ts`: every `Host` holds it) gets
   * here, so a socket file found is a stale one of a host that is gone, and
   * is replaced; if something answers on it all the same, nothing is removed
   * and this throws.
   */
  static async start(host: Host): Promise<ControlServer> {
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
    const ino = Deno.lstatSync(path).ino;
    const file: HostFile = {
      pid: Deno.pid,
      world: host.world.root,
      started: new Date().toISOString(),
    };
    const hostFile = host.world.hostFile();
    host.world.coreState();
    Deno.writeTextFileSync(`${hostFile}.tmp`, JSON.stringify(file) + "\n", { mode: 0o600 });
    Deno.renameSync(`${hostFile}.tmp`, hostFile);
    return new ControlServer(host, listener, path, ino);
  }

  private async accept(): Promise<void> {
    try {
      for await (const conn of this.listener) this.serve(conn);
    } catch { /* closed */ }
  }

  private async serve(conn: Deno.UnixConn): Promise<void> {
    const out = new LineWriter(conn.writable);
    this.conns.set(conn, out);
    const caller = new Connection(out);
    let greeted = false;
    try {
      const max = this.host.limits.line_mib * 2 ** 20;
      const tooLong = (seen: number) =>
        out.send(errorResponse(null, {
          code: ErrorCode.InvalidRequest,
          message: `a line of over ${seen} bytes was dropped: the limit is ${max} ` +
            `("line_mib" in config/limits.json)`,
        }));
      for await (const line of streamLines(conn.readable, max, tooLong)) {
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
        if (parsed.kind === "request") {
          try {
            this.handle(caller, parsed.msg, out);
          } catch (e) {
            out.send(errorResponse(parsed.msg.id ?? null, toErrorObject(e)));
          }
        } else if (parsed.kind === "invalid") {
          out.send(errorResponse(parsed.id, parsed.error));
        } else if (parsed.kind === "text") {
          out.send(
            errorResponse(null, { code: ErrorCode.ParseError, message: "not a JSON-RPC message" }),
          );
        }
      }
    } catch { /* connection reset */ }
    caller.hasEnded = true;
    this.conns.delete(conn);
    if (this.conns.size === 0) { for (const w of this.idleWaiters.splice(0)) w(); }
    if (!greeted) {
      await out.close();
      try {
        conn.close();
      } catch { /* closed */ }
    }
    await this.host.supervisor.stopChildren(caller);
  }

  private handle(caller: Connection, req: Request, out: LineWriter): void {
    if (!req.method.startsWith("$/")) return this.host.request(caller, req);
    const id = req.id ?? null;
    const reply = (result: unknown) => out.send(response(id, result));
    switch (req.method) {
      case HELLO:
        if (CONNECTION_NAMES.includes(req.params.as as string)) caller.name = String(req.params.as);
        return reply({ world: this.host.world.root, pid: Deno.pid });
      case "$/ps":
        return reply(this.host.table.list());
      case "$/workers":
        return reply(this.host.remote?.workers.list() ?? null);
      case "$/ls":
      case "$/cat": {
        const path = optionalParam(req.params, "path", "string") ?? "/";
        const fail = (e: unknown) =>
          out.send(errorResponse(id, {
            code: ErrorCode.InvalidParams,
            message: `${path}: ${e instanceof FsError ? e.code : e}`,
            data: { code: (e as FsError).code },
          }));
        if (req.method === "$/cat") this.host.fs.read(path).then((b) => reply(toBase64(b)), fail);
        else this.host.fs.list(path).then((l) => reply({ ...l, stat: statToWire(l.stat) }), fail);
        return;
      }
      default:
        out.send(
          errorResponse(id, {
            code: ErrorCode.MethodNotFound,
            message: `unknown host query ${req.method}`,
          }),
        );
    }
  }

  /**
   * Stops taking connections (the socket file goes: a command started now
   * waits for the world's lock instead); those already open go on.
   */
  stopListening(): void {
    if (!this.listening) return;
    this.listening = false;
    try {
      this.listener.close();
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
    const drained = Promise.all([...this.conns.values()].map((out) => out.close()));
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([drained, new Promise((r) => (timer = setTimeout(r, 1000)))]);
    clearTimeout(timer);
    for (const c of this.conns.keys()) {
      try {
        c.close();
      } catch { /* closed */ }
    }
  }
}
