/**
 * A worker (`sausage worker`): sandboxes on this machine offered to one
 * world's host over NATS. It runs processes exactly as the host's own
 * sandboxes do (the same `Sandbox` subprocesses: preemption, pooled memory,
 * limits, kill); their components come from the host by key
 * (`component_fetch.ts`), their files (`/`, `/proc`, `/self`, `/run`) are
 * served by the host, their calls go to the host's router as their output
 * lines. It sends a heartbeat every second with its load. When NATS goes
 * down, or the host says it was declared lost, its processes end here
 * (the host has ended them already); it rejoins when NATS returns.
 *
 * @module
 */

import { NatsClient } from "../core/remote/nats_client.ts";
import {
  checkToWorker,
  encode,
  type Heartbeat,
  type HostLead,
  readLead,
  Subjects,
  type ToWorker,
} from "../core/remote/wire.ts";
import { NatsLink } from "../core/remote/nats_link.ts";
import { SandboxPool } from "../core/sandboxes/sandbox_pool.ts";
import type { Sandbox } from "../core/sandboxes/sandbox.ts";
import type { FromSandbox, RunMessage, ToSandbox } from "../sandbox/protocol.ts";
import { SERVED_WORLD } from "../sandbox/preopens.ts";
import { ComponentCopies } from "./component_fetch.ts";
import { DEFAULT_MEMORY_POOL_MIB } from "../sandbox/memory_pool.ts";

/** How often a worker says it is there (ms). */
export const HEARTBEAT_MS = 1000;

/** This machine's name, without `--allow-sys` (the launcher allows only `uid`). */
function machineName(): string {
  try {
    return Deno.readTextFileSync("/etc/hostname").trim() || "machine";
  } catch {
    return Deno.env.get("HOSTNAME") ?? "machine";
  }
}

/** How to start a worker. */
export interface WorkerOptions {
  url: string;
  user?: string;
  password?: string;
  /** CA certificates (PEM) to trust for a `tls://` URL. */
  caCerts?: string[];
  /** The world's name on NATS. */
  world: string;
  /** This worker's id (default: machine, OS pid and a random part). */
  id?: string;
  /** How many sandboxes it runs (default: one per core). */
  sandboxes?: number;
  /** Its cache folder for components. */
  cache: string;
  /** A folder of its own its sandboxes may write (they have no world folder). */
  scratch: string;
  /** The longest line of a process (bytes). */
  maxLine: number;
  /** A sandbox silent this long is killed (ms). */
  stallMs: number;
  /**
   * The bytes its processes' memories may grow by together, shared among its
   * sandboxes as a host shares `world_memory_mib` (default: no bound).
   */
  memoryBytes?: number;
  /** Told of what happens (joins, NATS status), one line each. */
  report?: (line: string) => void;
}

/** The lead frame of the host's message (`wire.ts`), checked. */
function hostLead(v: unknown): HostLead {
  const m = v as Partial<HostLead> | null;
  if (m?.op !== "host" || typeof m.run !== "string") throw new Error("no host's lead");
  return m as HostLead;
}

/** A process on this worker: its sandbox once it runs, its messages until then. */
interface Running {
  sandbox: Sandbox | null;
  queue: ToSandbox[];
}

/** One worker process. */
export class Worker {
  readonly id: string;
  private client!: NatsClient;
  private subjects: Subjects;
  private pool: SandboxPool;
  private copies!: ComponentCopies;
  private running = new Map<string, Running>();
  /** The sandbox protocol with the host (a new one after a bad frame). */
  private link!: NatsLink<FromSandbox, ToWorker>;
  private beat: ReturnType<typeof setInterval> | undefined;
  private slots: number;
  /** The run of the host whose processes these are (`HostLead.run`). */
  private hostRun: string | null = null;

  constructor(private opts: WorkerOptions) {
    this.subjects = new Subjects(opts.world);
    const machine = machineName().replace(/[^A-Za-z0-9_-]/g, "-").slice(0, 40);
    this.id = opts.id ?? `${machine}-${Deno.pid}-${crypto.randomUUID().slice(0, 8)}`;
    this.slots = opts.sandboxes ?? (navigator.hardwareConcurrency || 1);
    this.pool = new SandboxPool({
      world: opts.scratch,
      cache: opts.cache,
      stallMs: opts.stallMs,
      maxLine: opts.maxLine,
      memoryPool: DEFAULT_MEMORY_POOL_MIB * 2 ** 20,
      memoryShare: opts.memoryBytes === undefined
        ? undefined
        : Math.floor(opts.memoryBytes / this.slots),
    }, this.slots);
  }

  /** Connects (rejects when the first attempt fails: a wrong password, no server) and serves. */
  async start(): Promise<void> {
    const report = this.opts.report ?? (() => {});
    this.client = await NatsClient.connect({
      url: this.opts.url,
      user: this.opts.user,
      password: this.opts.password,
      caCerts: this.opts.caCerts,
      name: `sausage worker ${this.id}`,
      inboxPrefix: this.subjects.inbox,
      onStatus: (down) => {
        if (down === null) return report(`worker ${this.id}: NATS is back; rejoining`);
        report(`worker ${this.id}: NATS is unreachable (${down}); its processes end`);
        this.forget();
      },
    });
    this.copies = new ComponentCopies(this.client, this.subjects.blob, this.opts.cache);
    this.openLink();
    await this.pool.warm();
    this.client.subscribe(this.subjects.worker(this.id), (m) => {
      let lead: HostLead;
      let frames: Uint8Array;
      try {
        ({ lead, rest: frames } = readLead(m.data, hostLead));
      } catch {
        return;
      }
      if (lead.run !== this.hostRun) {
        // A new run of the host (it restarted): the last one's processes are nobody's.
        if (this.hostRun !== null) this.forget();
        this.hostRun = lead.run;
      }
      this.link.receive(frames);
    });
    this.heartbeat();
    this.beat = setInterval(() => this.heartbeat(), HEARTBEAT_MS);
    report(`worker ${this.id}: serving world ${this.opts.world} with ${this.slots} sandboxes`);
  }

  /** A link to the host; one the host broke (a bad frame) is replaced, its processes ended. */
  private openLink(): void {
    const link = new NatsLink<FromSandbox, ToWorker>({
      client: this.client,
      subject: this.subjects.toHost,
      lead: { op: "worker", id: this.id },
      check: checkToWorker,
    });
    link.listen((msg) => this.handle(msg));
    link.closed.then((why) => {
      this.opts.report?.(`worker ${this.id}: the host ${why}; its processes end`);
      this.forget();
      this.openLink();
    });
    this.link = link;
  }

  private heartbeat(): void {
    const beat: Heartbeat = {
      worker: this.id,
      machine: machineName(),
      load: this.running.size,
      slots: this.slots,
    };
    try {
      this.client.publish(this.subjects.heartbeat, encode(beat));
    } catch { /* NATS is down: the next one, after it returns */ }
  }

  private handle(msg: ToWorker): void {
    if (msg.op === "forget") return this.forget();
    if (msg.op === "run") return void this.run(msg);
    const r = this.running.get(msg.pid);
    if (!r) return;
    if (r.sandbox) r.sandbox.send(msg);
    else r.queue.push(msg);
  }

  /** Runs a process: its `dir` names the component by its cache entry's key. */
  private async run(msg: RunMessage): Promise<void> {
    const r: Running = { sandbox: null, queue: [] };
    this.running.set(msg.pid, r);
    let sandbox: Sandbox;
    let dir: string;
    try {
      dir = await this.copies.get(msg.dir);
      sandbox = await this.pool.place();
    } catch (e) {
      this.running.delete(msg.pid);
      const error = `the worker ${this.id} could not start it: ${
        e instanceof Error ? e.message : e
      }`;
      return this.link.send({ op: "exit", pid: msg.pid, status: 1, error });
    }
    if (this.running.get(msg.pid) !== r) return; // forgotten meanwhile
    r.sandbox = sandbox;
    sandbox.start({ ...msg, dir, world: SERVED_WORLD }, (m) => {
      if (m.op === "exit") this.running.delete(m.pid);
      this.link.send(m);
    });
    for (const queued of r.queue) sandbox.send(queued);
    r.queue = [];
  }

  /** Ends every process here (the host no longer counts them). */
  private forget(): void {
    for (const [pid, r] of this.running) r.sandbox?.send({ op: "kill", pid });
    this.running.clear();
  }

  /** Stops: every process ends, the sandboxes go, the connection closes. */
  close(): void {
    clearInterval(this.beat);
    this.forget();
    this.pool.close();
    this.client?.close();
  }
}
