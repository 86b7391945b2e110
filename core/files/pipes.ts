/**
 * Pipes for endpoints (PROTOCOL 6): a process listens on a pipe of the core
 * (`core.listen` → `pipe:<n>`), another connects to it (`core.connect`), and
 * the core relays the bytes of each connection between the two ends
 * (`core.pipe` notifications). Bounded per process (`pipes`); a process's
 * pipes and connections close when it ends.
 *
 * @module
 */

import { HostError } from "../../rpc/errors.ts";
import type { JsonObject } from "../../rpc/message.ts";
import { optionalParam, stringParam } from "../../rpc/params.ts";
import type { CoreMethod } from "../calls/core_method.ts";
import type { Caller, Process } from "../processes/process.ts";

/** A pipe a process listens on. */
interface Listener {
  owner: Process;
  iface: string;
}

/** A connection: its two ends, the one that connected first. */
interface Conn {
  ends: [Process, Process];
}

/** The caller as a process; pipes belong to processes. */
function processOf(caller: Caller, method: string): Process {
  if (!("pid" in caller)) {
    throw new HostError(
      "invalid-request",
      `pipes belong to processes: call core.${method} from a plugin`,
    );
  }
  return caller as Process;
}

/** The pipes and connections of a host. */
export class Pipes {
  private listeners = new Map<string, Listener>();
  private conns = new Map<number, Conn>();
  /** Pipes and connections open per pid. */
  private open = new Map<string, number>();
  private nextPipe = 0;
  private nextConn = 0;

  /** @param max `pipes`: what one process may have open */
  constructor(private max: number) {}

  private count(p: Process, delta: number): void {
    const n = (this.open.get(p.pid) ?? 0) + delta;
    if (n > 0) this.open.set(p.pid, n);
    else this.open.delete(p.pid);
  }

  private room(p: Process): void {
    if ((this.open.get(p.pid) ?? 0) < this.max) return;
    throw new HostError(
      "limit-reached",
      `${p.pid} has ${this.max} pipes open (the limit pipes of config/limits.json)`,
      { limit: "pipes", value: this.max },
    );
  }

  /** `core.listen {interface}`: a new pipe of the caller. */
  listen(p: Process, iface: string): { address: string } {
    if (p.hasEnded) throw new HostError("invalid-request", `${p.pid} has ended`);
    this.room(p);
    const address = `pipe:${++this.nextPipe}`;
    this.listeners.set(address, { owner: p, iface });
    this.count(p, 1);
    return { address };
  }

  /** `core.connect {address, interface?}`: a connection from the caller to the pipe's owner. */
  connect(p: Process, address: string, iface: string | undefined): { conn: number } {
    const l = this.listeners.get(address);
    if (!l) {
      throw new HostError(
        "invalid-params",
        `no pipe ${address}: its owner has ended (a stale endpoint file)`,
      );
    }
    if (iface !== undefined && l.iface !== iface) {
      throw new HostError("invalid-params", `${address} serves ${l.iface}, not ${iface}`);
    }
    this.room(p);
    if (l.owner !== p) this.room(l.owner);
    const conn = ++this.nextConn;
    this.conns.set(conn, { ends: [p, l.owner] });
    this.count(p, 1);
    this.count(l.owner, 1);
    l.owner.deliver(note({ conn, open: address, from: p.pid }));
    return { conn };
  }

  /** `core.pipe {conn, data?, close?}` from one end: to the other end. */
  relay(p: Process, conn: number, data: string | undefined, close: boolean): void {
    const c = this.conns.get(conn);
    if (!c || !c.ends.includes(p)) return;
    const other = c.ends[0] === p ? c.ends[1] : c.ends[0];
    if (data !== undefined && data !== "") other.deliver(note({ conn, data }));
    if (close) this.close(conn, other);
  }

  private close(conn: number, tell: Process | null): void {
    const c = this.conns.get(conn);
    if (!c) return;
    this.conns.delete(conn);
    for (const end of c.ends) this.count(end, -1);
    if (tell && !tell.hasEnded) tell.deliver(note({ conn, close: true }));
  }

  /** `p` ended: its pipes go, its connections close (the other end is told). */
  end(p: Process): void {
    for (const [address, l] of this.listeners) {
      if (l.owner === p) this.listeners.delete(address);
    }
    for (const [conn, c] of this.conns) {
      if (c.ends.includes(p)) this.close(conn, c.ends[0] === p ? c.ends[1] : c.ends[0]);
    }
    this.open.delete(p.pid);
  }

  /** `core.listen`, `core.connect`, `core.pipe`. */
  methods(): Map<string, CoreMethod> {
    return new Map<string, CoreMethod>([
      [
        "listen",
        (caller, params) =>
          this.listen(processOf(caller, "listen"), stringParam(params, "interface")),
      ],
      ["connect", (caller, params) =>
        this.connect(
          processOf(caller, "connect"),
          stringParam(params, "address"),
          optionalParam(params, "interface", "string"),
        )],
      ["pipe", (caller, params) => {
        const conn = params.conn;
        if (typeof conn !== "number") {
          throw new HostError("invalid-params", `"conn" must be a number`);
        }
        this.relay(
          processOf(caller, "pipe"),
          conn,
          optionalParam(params, "data", "string"),
          optionalParam(params, "close", "boolean") ?? false,
        );
        return {};
      }],
    ]);
  }
}

/** A `core.pipe` notification to one end. */
function note(params: JsonObject) {
  return { jsonrpc: "2.0" as const, method: "core.pipe", params };
}
