/**
 * The control socket of a running host: JSON-RPC, one message per line, on
 * 127.0.0.1. The CLI (`sausage call`, `ps`, …) and later the console connect
 * here. A connection is a caller named `console`: its attached processes stop
 * when it closes. Methods under `$/` are host queries, not calls:
 * `$/hello` (which world), `$/ps` (the process table), `$/ls {path}` and
 * `$/cat {path}` (the filesystem as a process sees it).
 *
 * The port is in `state/core/host.json`, with the host's OS pid.
 *
 * @module
 */

import { ErrorCode } from "../rpc/errors.ts";
import { LineWriter, readLines } from "../rpc/line_channel.ts";
import { type Message, parseLine, type Request } from "../rpc/message.ts";
import type { Caller } from "./caller.ts";
import type { Host } from "./host.ts";
import type { Process } from "./process.ts";
import { toBase64 } from "../rpc/base64.ts";
import { statToWire } from "../vfs/wire.ts";
import { FsError } from "../vfs/mount.ts";

/** What `state/core/host.json` holds. */
export interface HostFile {
  pid: number;
  port: number;
  world: string;
  started: string;
}

class Connection implements Caller {
  readonly name = "console";
  readonly children = new Set<Process>();
  gone = false;
  constructor(private out: LineWriter) {}
  deliver(msg: Message): void {
    if (!this.gone) this.out.send(msg);
  }
}

/** Serves the control socket of a host until `close`. */
export class ControlServer {
  private listener: Deno.TcpListener;
  private conns = new Set<Deno.TcpConn>();

  /** Listens on a free port of 127.0.0.1 and writes the host file. */
  constructor(private host: Host) {
    this.listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const file: HostFile = {
      pid: Deno.pid,
      port: (this.listener.addr as Deno.NetAddr).port,
      world: host.world.root,
      started: new Date().toISOString(),
    };
    const path = host.world.hostFile();
    Deno.writeTextFileSync(`${path}.tmp`, JSON.stringify(file) + "\n");
    Deno.renameSync(`${path}.tmp`, path);
    this.accept();
  }

  private async accept(): Promise<void> {
    try {
      for await (const conn of this.listener) this.serve(conn);
    } catch { /* closed */ }
  }

  private async serve(conn: Deno.TcpConn): Promise<void> {
    this.conns.add(conn);
    const out = new LineWriter(conn.writable);
    const caller = new Connection(out);
    try {
      for await (const line of readLines(conn.readable)) {
        const parsed = parseLine(line);
        if (parsed.kind === "request") this.handle(caller, parsed.msg, out);
        else if (parsed.kind === "invalid") {
          out.send({ jsonrpc: "2.0", id: parsed.id, error: parsed.error });
        } else if (parsed.kind === "text") {
          out.send({
            jsonrpc: "2.0",
            id: null,
            error: { code: ErrorCode.ParseError, message: "not a JSON-RPC message" },
          });
        }
      }
    } catch { /* connection reset */ }
    caller.gone = true;
    this.conns.delete(conn);
    await this.host.supervisor.stopChildren(caller);
  }

  private handle(caller: Connection, req: Request, out: LineWriter): void {
    if (!req.method.startsWith("$/")) return this.host.request(caller, req);
    const reply = (result: unknown) => out.send({ jsonrpc: "2.0", id: req.id ?? null, result });
    switch (req.method) {
      case "$/hello":
        return reply({ world: this.host.world.root, pid: Deno.pid });
      case "$/ps":
        return reply(this.host.table.list());
      case "$/ls":
      case "$/cat": {
        const path = String(req.params.path ?? "/");
        const fail = (e: unknown) =>
          out.send({
            jsonrpc: "2.0",
            id: req.id ?? null,
            error: {
              code: ErrorCode.InvalidParams,
              message: `${path}: ${e instanceof FsError ? e.code : e}`,
              data: { code: (e as FsError).code },
            },
          });
        if (req.method === "$/cat") this.host.fs.read(path).then((b) => reply(toBase64(b)), fail);
        else this.host.fs.list(path).then((l) => reply({ ...l, stat: statToWire(l.stat) }), fail);
        return;
      }
      default:
        out.send({
          jsonrpc: "2.0",
          id: req.id ?? null,
          error: { code: ErrorCode.MethodNotFound, message: `unknown host query ${req.method}` },
        });
    }
  }

  /** Stops listening, closes connections and removes the host file. */
  close(): void {
    try {
      this.listener.close();
    } catch { /* closed */ }
    for (const c of this.conns) {
      try {
        c.close();
      } catch { /* closed */ }
    }
    try {
      Deno.removeSync(this.host.world.hostFile());
    } catch { /* gone */ }
  }
}
