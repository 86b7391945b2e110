/**
 * The one client of a world's host. Every user calls a world through it:
 * the CLI's commands, the console, the MCP server, the test runner, the
 * benchmarks. It speaks JSON-RPC over a transport (ids, pending calls and
 * their end belong to `rpc/connection.ts`), to the host's control server
 * (`control_server.ts`), and is made one of three ways:
 *
 * - `connect`: the running host's control socket (`control_path.ts`: a Unix
 *   socket in a private folder, named by a hash of the world's path; a
 *   missing or stale socket means no host runs). It opens with `$/hello`,
 *   which also checks that the host serves this world.
 * - `of`: a host in this OS process, over a transport in memory.
 * - `reach`: the running host, or else a host made for this command under
 *   the world's lock (`host_lock.ts`), which ends when the client closes.
 *   When the world is locked and its socket does not answer yet (a host is
 *   starting, or is building at start), it waits for the socket and uses
 *   it, or takes the lock once the holder is gone. So however many commands
 *   start together, one host serves the world; a host made here serves the
 *   control socket too, so the commands that start meanwhile use it.
 *
 * Closing the client ends its caller on the host (`control_session.ts`:
 * late answers dropped, its attached processes stopped).
 *
 * @module
 */

import { controlSocketPath, HELLO } from "./control_path.ts";
import { describeHolder, HostLock } from "./host_lock.ts";
import { Connection } from "../../rpc/connection.ts";
import { carrierLineLimit, DEFAULT_MAX_LINE } from "../../rpc/line_splitter.ts";
import { LineTransport, rawDuplex } from "../../rpc/line_transport.ts";
import { fromBase64 } from "../../rpc/base64.ts";
import type { Id, Request, Response } from "../../rpc/message.ts";
import type { Transport } from "../../rpc/transport.ts";
import { statFromWire, type WireStat } from "../../vfs/wire.ts";
import { loadLater } from "../load_later.ts";
import type { Listing } from "../../vfs/host_fs.ts";
import type { World } from "../world/world.ts";
import type { Host } from "../host.ts";
import type { HostOptions } from "../host_options.ts";
import type { Caller } from "../processes/process.ts";
import type { ControlSession } from "./control_session.ts";
import type { WorldServer } from "./world_server.ts";

/** How long a command waits in silence for a starting host before it says so. */
export const WAIT_NOTE_MS = 2000;

/** How `reach` makes a host when none runs. */
export interface ReachOptions {
  /** What the lock file says holds the world (`sausage call`, `sausage mcp`). */
  command: string;
  /** A host that ends with the command (default true). */
  transient?: boolean;
  /** Other options of the host made here. */
  host?: HostOptions;
  /** Hears one line when the command waits for a starting host. */
  report?: (line: string) => void;
}

/** A client of a world's host. */
export class WorldClient {
  private conn: Connection;
  private ids = 0;
  private last: Id = 0;
  /** Receives notifications (`core.notify` of the calls made here). */
  onNotify: (msg: Request) => void = () => {};

  private constructor(
    transport: Transport,
    /** What the ids of its requests start with (`console-1`), or none (1, 2, …). */
    prefix: string | undefined,
    /** The caller on the host's side, when the host is in this OS process. */
    private session?: ControlSession,
    /** The host made for this client, which ends with it. */
    private own?: WorldServer,
  ) {
    this.conn = new Connection(transport, {
      closedMessage: "the host closed the connection",
      nextId: () => (this.last = prefix ? `${prefix}-${++this.ids}` : ++this.ids),
    });
    this.conn.onrequest = (msg) => this.onNotify(msg);
  }

  /** Connects to the running host of `world`, or returns null when none runs. */
  static async connect(world: World): Promise<WorldClient | null> {
    let socket: Deno.UnixConn;
    try {
      socket = await Deno.connect({ transport: "unix", path: await controlSocketPath(world.root) });
    } catch {
      return null;
    }
    // The host's answers carry lines of up to the world's limit, JSON-encoded.
    const transport = new LineTransport(rawDuplex(socket), carrierLineLimit(DEFAULT_MAX_LINE));
    const client = new WorldClient(transport, undefined);
    try {
      const hello = await client.request(HELLO, {}) as { world?: string };
      if (hello.world === world.root) return client;
    } catch { /* not a sausage host */ }
    client.close();
    return null;
  }

  /**
   * A client of `host`, in this OS process, as the caller `name`
   * (`SAUSAGE_PARENT` of the processes its calls start).
   */
  static of(host: Host, name: string): WorldClient {
    return WorldClient.linked(host, name);
  }

  private static linked(host: Host, name: string, own?: WorldServer): WorldClient {
    const { transport, session } = host.control.link(name);
    return new WorldClient(transport, name, session, own);
  }

  /**
   * The running host of `world`, or a host made for this command (served,
   * not started, with the control socket; `sandboxes` and the like from
   * `opts.host`) that the client's `close` ends. The client's caller is
   * `console`.
   */
  static async reach(world: World, opts: ReachOptions): Promise<WorldClient> {
    const found = await WorldClient.reachOrServe(world, opts);
    if (found instanceof WorldClient) return found;
    return WorldClient.linked(found.host, "console", found);
  }

  /**
   * Connects to the running host of `world`, or makes one holding the
   * world's lock (with its control socket served, not started) and hands it
   * back to be served for as long as the caller wants (`sausage mcp`).
   */
  static async reachOrServe(world: World, opts: ReachOptions): Promise<WorldClient | WorldServer> {
    const started = Date.now();
    let told = false;
    let pause = 10;
    for (;;) {
      const client = await WorldClient.connect(world);
      if (client) return client;
      const transient = opts.transient ?? true;
      const lock = HostLock.tryTake(world, { command: opts.command, transient });
      if (lock) {
        // Loaded only here: a command served by a running host does not load the host's modules.
        // The host's ~220 modules, only when there is no host to reach (`load_later.ts`).
        const { WorldServer } = await loadLater<typeof import("./world_server.ts")>(
          new URL("./world_server.ts", import.meta.url),
        );
        return await WorldServer.open(world.root, {
          ...opts.host,
          lock,
          command: opts.command,
          transient,
        });
      }
      if (!told && Date.now() - started > WAIT_NOTE_MS) {
        told = true;
        opts.report?.(
          `sausage: waiting for the host of ${world.root} (${
            describeHolder(HostLock.holder(world))
          }) to open its control socket`,
        );
      }
      await new Promise((r) => setTimeout(r, pause));
      pause = Math.min(pause * 2, 100);
    }
  }

  /** True when a host that was running already serves this client (over its control socket). */
  get running(): boolean {
    return this.session === undefined;
  }

  /** The id of the request sent last (for `core.cancel`). */
  get lastId(): Id {
    return this.last;
  }

  /**
   * The caller on the host's side, for what a wire does not carry (the test
   * runner spawns a command with it). Only for a host in this OS process.
   */
  get caller(): Caller {
    if (!this.session) throw new Error("the caller of a socket client is in the host's process");
    return this.session;
  }

  /** Sends a notification. */
  notify(method: string, params: Record<string, unknown>): void {
    this.conn.notify(method, params);
  }

  /** Sends a request and resolves with the whole response (-32603 if the host closes first). */
  send(method: string, params: Record<string, unknown>): Promise<Response> {
    return this.conn.request(method, params);
  }

  /** Sends a request; resolves with its result or rejects with its error message. */
  async request(method: string, params: Record<string, unknown>): Promise<unknown> {
    const r = await this.send(method, params);
    if (r.error) throw new Error(r.error.message);
    return r.result;
  }

  /** A file as a process sees it (`$/cat`); rejects with the host's `RpcError`. */
  async read(path: string): Promise<Uint8Array> {
    return fromBase64(await this.query("$/cat", path) as string);
  }

  /** A folder (or a file's stat) as a process sees it (`$/ls`); rejects with the host's `RpcError`. */
  async list(path: string): Promise<Listing> {
    const l = await this.query("$/ls", path) as Listing & { stat: WireStat };
    return { ...l, stat: statFromWire(l.stat) };
  }

  private query(method: string, path: string): Promise<unknown> {
    return this.conn.call(method, { path });
  }

  /**
   * Kills at once the attached processes of this client's calls (no grace:
   * the console's Ctrl-C) and returns their pids. Only for a host in this
   * OS process; over the socket, `core.cancel` stops a call.
   */
  kill(): string[] {
    if (!this.session) throw new Error("a socket client cancels with core.cancel");
    return this.session.kill();
  }

  /**
   * Ends the client: its caller on the host ends (its attached processes
   * stop). A host made for it (`reach`) then takes no more connections,
   * waits for those open, and shuts down, its processes given `graceMs`.
   */
  async close(graceMs?: number): Promise<void> {
    this.conn.close();
    if (this.own) await this.own.release(graceMs);
  }
}
