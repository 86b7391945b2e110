/**
 * A worker (`sausage worker`): sandboxes on this machine offered to one
 * world's host over NATS. It runs processes exactly as the host's own
 * sandboxes do (the same `Sandbox` subprocesses: preemption, pooled memory,
 * limits, kill); their components come from the host by key
 * (`component_fetch.ts`), their files (`/`, `/proc`, `/self`, `/run`) are
 * served by the host (small world files answered here once they came
 * whole: `whole_files.ts`), their calls go to the host's router as their output
 * lines. It sends a heartbeat every second with its load. When NATS goes
 * down, or the host says it was declared lost, its processes end here
 * (the host has ended them already); it rejoins when NATS returns.
 *
 * @module
 */

import { NatsClient, type NatsMsg } from "../core/remote/nats_client.ts";
import {
  checkToWorker,
  DEFAULT_LOSS_MS,
  encode,
  type Heartbeat,
  type HostLead,
  readLead,
  Subjects,
  type ToWorker,
} from "../core/remote/wire.ts";
import { NatsLink } from "../core/remote/nats_link.ts";
import { SandboxPool } from "../core/sandboxes/sandbox_pool.ts";
import { NEVER_STARTED } from "../core/processes/process.ts";
import type { Sandbox } from "../core/sandboxes/sandbox.ts";
import type { FromSandbox, FsReply, RunMessage, ToSandbox } from "../sandbox/hop/protocol.ts";
import type { WholeFile } from "../core/files/fs_server.ts";
import { WholeFiles } from "./whole_files.ts";
import { SERVED_WORLD } from "../sandbox/hop/terms.ts";
import { ComponentCopies } from "./component_fetch.ts";
import { DEFAULT_MEMORY_POOL_MIB } from "../sandbox/hop/terms.ts";

/** How often a worker says it is there (ms). */
export const HEARTBEAT_MS = 1000;

/** How often a worker checks that its host still speaks (ms). */
const WATCH_MS = 100;

/** The longest pause between two tries to start a worker's sandboxes (ms). */
const WARM_MAX_PAUSE_MS = 30_000;

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
  /** An nkey seed (`SU…`; `sausage workers add`), instead of a user and password. */
  nkeySeed?: string;
  /** CA certificates (PEM) to trust for a `tls://` URL. */
  caCerts?: string[];
  /** The world's name on NATS. */
  world: string;
  /**
   * This worker's id, its subjects' last token (default: machine, OS pid and
   * a random part; with per-worker credentials, the id they were made for).
   */
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
  if (m?.op !== "host" || typeof m.run !== "string" || typeof m.to !== "string") {
    throw new Error("no host's lead");
  }
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
  /** This run of the worker (`Heartbeat.instance`). */
  readonly instance = crypto.randomUUID();
  /** Its heartbeats' count. */
  private seq = 0;
  /** When the host last spoke to this run (ms). */
  private lastHost = Date.now();
  /** The host's loss time (its lead's `loss_ms`). */
  private hostLossMs = DEFAULT_LOSS_MS;
  /** Whether the host turned it away (another live worker has its id). */
  private refused = false;
  private watch: ReturnType<typeof setInterval> | undefined;
  /** Small files of the world, answered here: open handles, and files kept for later opens. */
  private wholeFiles = new WholeFiles();
  /** When `watchHost` last ran (ms). */
  private lastWatch = Date.now();

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

  /**
   * Connects and serves. Rejects when the server refuses the credentials;
   * while it cannot be reached (or is slow to answer: a loaded machine) it
   * keeps trying, and says so every 10 s.
   */
  async start(): Promise<void> {
    const report = this.opts.report ?? (() => {});
    this.client = NatsClient.open({
      url: this.opts.url,
      user: this.opts.user,
      password: this.opts.password,
      nkeySeed: this.opts.nkeySeed,
      caCerts: this.opts.caCerts,
      name: `sausage worker ${this.id}`,
      inboxPrefix: this.subjects.inbox(this.id),
      onStatus: (down) => {
        if (down === null) return report(`worker ${this.id}: NATS is back; rejoining`);
        report(`worker ${this.id}: NATS is unreachable (${down}); its processes end`);
        this.forget();
      },
      onPermission: (r) => {
        report(
          `worker ${this.id}: NATS refused its ${r.operation} on ${r.subject} (${r.message}); ` +
            "are its credentials this id's? its processes end",
        );
        this.forget();
      },
    });
    const waiting = setInterval(
      () =>
        report(`worker ${this.id}: NATS at ${this.opts.url}: ${this.client.down}; still trying`),
      10_000,
    );
    try {
      await this.client.whenUp();
    } catch (e) {
      this.client.close();
      throw e;
    } finally {
      clearInterval(waiting);
    }
    this.copies = new ComponentCopies(this.client, this.subjects.blob(this.id), this.opts.cache);
    this.openLink();
    await this.warm(report);
    this.client.subscribe(this.subjects.worker(this.id), (m) => this.fromHost(m));
    this.heartbeat();
    this.beat = setInterval(() => this.heartbeat(), HEARTBEAT_MS);
    this.lastWatch = Date.now();
    this.watch = setInterval(() => this.watchHost(), WATCH_MS);
    report(`worker ${this.id}: serving world ${this.opts.world} with ${this.slots} sandboxes`);
  }

  /**
   * Starts its sandboxes, trying again with backoff while the first is too
   * slow to start (a machine busy starting many at once): 1, 2, 4, 8, 16,
   * then 30 s apart, each pause ±50 % so that workers started together do
   * not try again together; it says each failure, and never gives up (a
   * service manager would only start it again).
   */
  private async warm(report: (line: string) => void): Promise<void> {
    for (let attempt = 1;; attempt++) {
      try {
        return await this.pool.warm();
      } catch (e) {
        if (this.closed) throw e;
        const base = Math.min(WARM_MAX_PAUSE_MS, 1000 * 2 ** (attempt - 1));
        const pause = Math.round(base * (0.5 + Math.random()));
        report(
          `worker ${this.id}: ${e instanceof Error ? e.message : e}; ` +
            `trying again in ${(pause / 1000).toFixed(1)} s (attempt ${attempt})`,
        );
        await new Promise((r) => setTimeout(r, pause));
      }
    }
  }

  /**
   * A message on its subject: only those for this run of the worker (the
   * lead's `to`); a new run of the host ends what the last one left here;
   * a refusal (another live worker has this id) is said once.
   */
  private fromHost(m: NatsMsg): void {
    let lead: HostLead;
    let frames: Uint8Array;
    try {
      ({ lead, rest: frames } = readLead(m.data, hostLead));
    } catch {
      return;
    }
    if (lead.to !== this.instance) return; // another run of this id's (refused, or to be)
    if (lead.refused !== undefined) {
      if (!this.refused) {
        this.opts.report?.(`worker ${this.id}: refused by the host: ${lead.refused}`);
      }
      this.refused = true;
      return;
    }
    if (this.refused) {
      this.refused = false;
      this.opts.report?.(`worker ${this.id}: taken by the host now`);
    }
    this.lastHost = Date.now();
    if (typeof lead.loss_ms === "number" && lead.loss_ms >= 500) this.hostLossMs = lead.loss_ms;
    if (lead.run !== this.hostRun) {
      // A new run of the host (it restarted): the last one's processes are nobody's.
      if (this.hostRun !== null) this.forget();
      this.hostRun = lead.run;
    }
    if (lead.ping) this.heartbeat();
    this.link.receive(frames);
  }

  /**
   * Ends every process when the host has said nothing for its loss time
   * (it answers every heartbeat): a host killed, or cut off, leaves nothing
   * running here; it has ended them on its side by then. Time this worker
   * itself was held up (this check came over 250 ms late: a loaded machine)
   * does not count as the host's silence, nor do the host's words that
   * waited for this worker: they end only after a round trip to the server
   * (a PING answered by its PONG) in which nothing came from the host.
   */
  private watchHost(): void {
    const now = Date.now();
    const late = now - this.lastWatch - WATCH_MS;
    this.lastWatch = now;
    if (late > 250) this.lastHost += late;
    if (this.running.size === 0 || this.hostRun === null) return;
    if (now - this.lastHost > this.hostLossMs) void this.confirmHostGone();
  }

  /** Whether {@link confirmHostGone}'s round trip is under way. */
  private confirming = false;

  /** Ends every process if the host is still silent after a round trip to the server. */
  private async confirmHostGone(): Promise<void> {
    if (this.confirming) return;
    this.confirming = true;
    const heard = this.lastHost;
    try {
      await this.client.flush();
    } catch {
      return; // NATS down: `onStatus` ends them; no PONG in 10 s: the next check tries again
    } finally {
      this.confirming = false;
    }
    const silent = Date.now() - this.lastHost;
    if (this.lastHost !== heard || silent <= this.hostLossMs || this.running.size === 0) return;
    this.opts.report?.(
      `worker ${this.id}: no word from the host for ${(silent / 1000).toFixed(1)} s; ` +
        `its ${this.running.size} processes end`,
    );
    this.forget();
  }

  /** A link to the host; one the host broke (a bad frame) is replaced, its processes ended. */
  private openLink(): void {
    const link = new NatsLink<FromSandbox, ToWorker>({
      client: this.client,
      subject: this.subjects.toHost(this.id),
      lead: { op: "worker", id: this.id, instance: this.instance },
      check: checkToWorker,
      // A process's answer is followed by its exit: one NATS message for both (a message less
      // for the host to handle per call). A request or notification (a line that names a
      // method) goes at once: the process waits for its answer.
      linger: (m) => m.op === "out" && !m.line.includes('"method"'),
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
      instance: this.instance,
      seq: ++this.seq,
      machine: machineName(),
      load: this.running.size,
      slots: this.slots,
    };
    try {
      this.client.publish(this.subjects.heartbeat(this.id), encode(beat));
    } catch { /* NATS is down: the next one, after it returns */ }
  }

  private handle(msg: ToWorker): void {
    if (msg.op === "forget") return this.forget();
    if (msg.op === "uncache") return this.wholeFiles.uncache(msg.keys, msg.all);
    if (msg.op === "run") return void this.run(msg);
    if (msg.op === "fs-reply" && "whole" in msg) {
      // A small file opened for reading, whole: its handle's reads are answered here.
      msg = this.wholeFiles.took(msg as FsReply & { whole: WholeFile });
    }
    const r = this.running.get(msg.pid);
    if (!r) return this.wholeFiles.ended(msg.pid); // a whole file for a process gone meanwhile
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
      const error = `the worker ${this.id} could not start it (${NEVER_STARTED}): ${
        e instanceof Error ? e.message : e
      }`;
      return this.link.send({ op: "exit", pid: msg.pid, status: 1, error });
    }
    if (this.running.get(msg.pid) !== r) return; // forgotten meanwhile
    r.sandbox = sandbox;
    sandbox.start({ ...msg, dir, world: SERVED_WORLD }, (m) => {
      if (m.op === "exit") {
        this.running.delete(m.pid);
        this.wholeFiles.ended(m.pid);
      }
      if (m.op === "fs" && m.mount === "world") {
        const reply = this.wholeFiles.answer(m);
        if (reply) return sandbox.send(reply);
      }
      this.link.send(m);
    });
    for (const queued of r.queue) sandbox.send(queued);
    r.queue = [];
  }

  /** Ends every process here (the host no longer counts them). */
  private forget(): void {
    for (const [pid, r] of this.running) r.sandbox?.send({ op: "kill", pid });
    this.running.clear();
    this.wholeFiles.clear();
  }

  /** Set by `close`. */
  private closed = false;

  /** Stops: every process ends, the sandboxes go, the connection closes. */
  close(): void {
    this.closed = true;
    clearInterval(this.beat);
    clearInterval(this.watch);
    this.forget();
    this.pool.close();
    this.client?.close();
  }
}
