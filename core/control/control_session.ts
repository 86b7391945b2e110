/**
 * One client of a host, as the host sees it: the caller behind one
 * connection of the control server (`control_server.ts`), whatever carries
 * it (the control socket, or a transport in memory for a user in this OS
 * process). It answers the host queries under `$/`, hands calls to the
 * router, and owns the caller's end: once ended, late answers are dropped
 * and its attached processes are stopped (`core.stop`: EOF, grace, kill).
 *
 * @module
 */

import { ErrorCode, toErrorObject } from "../../rpc/errors.ts";
import { errorResponse, type Message, type Request, response } from "../../rpc/message.ts";
import { optionalParam } from "../../rpc/params.ts";
import { toBase64 } from "../../rpc/base64.ts";
import { statToWire } from "../../vfs/wire.ts";
import { FsError } from "../../vfs/mount.ts";
import { HELLO } from "./control_path.ts";
import type { Host } from "../host.ts";
import type { Caller, Process } from "../processes/process.ts";

/** The names a socket connection may call itself in `$/hello {"as"}`: its processes' `SAUSAGE_PARENT`. */
const CONNECTION_NAMES = ["console", "mcp"];

/** The caller of one control connection. */
export class ControlSession implements Caller {
  /** The attached processes it started. */
  readonly children = new Set<Process>();
  private ended = false;

  /**
   * @param host the host it calls
   * @param send writes a message to the client (dropped once the client is gone)
   * @param name what its processes see as `SAUSAGE_PARENT` (a socket's `$/hello` may change it)
   * @param named whether `name` was given by this process (then `$/hello {"as"}` keeps it)
   */
  constructor(
    private host: Host,
    private send: (msg: Message) => void,
    public name = "console",
    private named = false,
  ) {}

  /** True once the client has gone: its late answers and notifications are dropped. */
  get hasEnded(): boolean {
    return this.ended;
  }

  /** Hands a response or notification to the client. */
  deliver(msg: Message): void {
    if (!this.ended) this.send(msg);
  }

  /**
   * Serves one request of the client: a host query (`$/…`) or a call
   * through the router; a request that throws is answered with its error.
   */
  handle(req: Request): void {
    try {
      this.dispatch(req);
    } catch (e) {
      this.deliver(errorResponse(req.id ?? null, toErrorObject(e)));
    }
  }

  private dispatch(req: Request): void {
    if (!req.method.startsWith("$/")) return this.host.request(this, req);
    const id = req.id ?? null;
    const reply = (result: unknown) => this.deliver(response(id, result));
    switch (req.method) {
      case HELLO: {
        const as = req.params.as;
        if (!this.named && typeof as === "string" && CONNECTION_NAMES.includes(as)) this.name = as;
        return reply({ world: this.host.world.root, pid: Deno.pid });
      }
      case "$/ps":
        return reply(this.host.table.list());
      case "$/workers":
        return reply(this.host.remote?.workers.list() ?? null);
      case "$/ls":
      case "$/cat": {
        const path = optionalParam(req.params, "path", "string") ?? "/";
        const fail = (e: unknown) =>
          this.deliver(errorResponse(id, {
            code: ErrorCode.InvalidParams,
            message: `${path}: ${e instanceof FsError ? e.code : e}`,
            data: { code: e instanceof FsError ? e.code : undefined },
          }));
        if (req.method === "$/cat") this.host.fs.read(path).then((b) => reply(toBase64(b)), fail);
        else this.host.fs.list(path).then((l) => reply({ ...l, stat: statToWire(l.stat) }), fail);
        return;
      }
      default:
        this.deliver(errorResponse(id, {
          code: ErrorCode.MethodNotFound,
          message: `unknown host query ${req.method}`,
        }));
    }
  }

  /**
   * Kills the attached processes at once (no grace: the console's Ctrl-C, a
   * transient host's cancelled call) and resolves with their pids.
   */
  kill(): string[] {
    const pids: string[] = [];
    for (const p of this.children) {
      pids.push(p.pid);
      this.host.supervisor.kill(p);
    }
    return pids;
  }

  /** The client has gone: drops its late answers and stops its attached processes (once). */
  end(): Promise<unknown> {
    if (this.ended) return Promise.resolve();
    this.ended = true;
    return this.host.supervisor.stopChildren(this);
  }
}
