/**
 * The workers of a world, on its host: who is there (heartbeats), who is
 * lost (no heartbeat for `lossMs`, or NATS down), their messages to the
 * host, and the component entries they fetch. Joins, losses and
 * placements are journaled (`worker-joined`, `worker-lost`, `placed`).
 *
 * @module
 */

import type { NatsClient, NatsMsg } from "./nats_client.ts";
import { decode, type Heartbeat, readLead, type Subjects, type WorkerLead } from "./wire.ts";
import { RemoteWorker } from "./remote_worker.ts";
import type { Mount } from "../../vfs/mount.ts";
import { ComponentShelf } from "./component_shelf.ts";

/** Hears the events worth journaling. */
export type WorkerEvents = (event: string, fields: Record<string, unknown>) => void;

/** A worker as `sausage workers` lists it. */
export interface WorkerInfo {
  worker: string;
  machine: string;
  load: number;
  slots: number;
  placed: number;
  joined: string;
  /** Ms since its last heartbeat. */
  seen_ms: number;
}

/**
 * How long a worker may stay silent before it is lost (ms): two and a half
 * heartbeats, so that with checks every 100 ms the calls of a dead worker
 * are answered within 3 s of its death.
 */
export const DEFAULT_LOSS_MS = 2500;

/** The lead frame of a worker's message (`wire.ts`), checked. */
function workerLead(v: unknown): WorkerLead {
  const m = v as Partial<WorkerLead> | null;
  if (m?.op !== "worker" || typeof m.id !== "string") throw new Error("no worker's lead");
  return m as WorkerLead;
}

/** The live workers of one world. */
export class WorkerSet {
  private workers = new Map<string, RemoteWorker>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private unsubscribe: (() => void)[] = [];
  private shelf = new ComponentShelf();
  private turn = 0;
  /** Whether a worker was turned away for `max_workers` since the last loss. */
  private full = false;
  /** When the host began to listen: workers make themselves heard within a heartbeat of it. */
  private began = Date.now();
  /** Told of the next worker to join. */
  private joins: (() => void)[] = [];
  /** This host run's id: workers drop what an earlier run of the host left them. */
  private run = crypto.randomUUID();

  /**
   * @param client the host's NATS connection
   * @param subjects the world's subjects
   * @param world `/` of remote processes (with the world's disk bound)
   * @param events the journal's core events
   * @param lossMs silence after which a worker is lost
   * @param maxWorkers the most workers at once (`max_workers`): more are ignored
   */
  constructor(
    private client: NatsClient,
    private subjects: Subjects,
    private world: Mount,
    private events: WorkerEvents,
    private lossMs = DEFAULT_LOSS_MS,
    private maxWorkers = 256,
  ) {}

  /** Listens for heartbeats, messages and fetches; checks for silent workers. */
  start(): void {
    this.began = Date.now();
    this.unsubscribe.push(
      this.client.subscribe(this.subjects.heartbeat, (m) => this.heartbeat(m)),
      this.client.subscribe(this.subjects.toHost, (m) => this.fromWorker(m)),
      this.client.subscribe(this.subjects.blob, (m) => this.shelf.serve(this.client, m)),
    );
    const timer = setInterval(() => this.check(), Math.min(100, this.lossMs / 8));
    Deno.unrefTimer(timer);
    this.timer = timer;
  }

  private heartbeat(m: NatsMsg): void {
    let beat: Heartbeat;
    try {
      beat = decode<Heartbeat>(m.data);
      if (typeof beat.worker !== "string" || !/^[A-Za-z0-9_-]{1,100}$/.test(beat.worker)) return;
    } catch {
      return;
    }
    const known = this.workers.get(beat.worker);
    if (known) return known.heard(beat);
    if (this.workers.size >= this.maxWorkers) {
      if (!this.full) {
        this.full = true; // said once until one leaves
        this.events("limit", { limit: "max_workers", value: this.maxWorkers, worker: beat.worker });
      }
      return;
    }
    const w = new RemoteWorker(beat, {
      client: this.client,
      subject: this.subjects.worker(beat.worker),
      run: this.run,
      world: this.world,
      share: (dir) => this.shelf.share(dir),
      fault: (pid, message) => this.events("host-fault", { pid, error: message }),
      untrusted: (why) => this.lose(w, `it sent what the host does not accept: ${why}`),
    });
    this.workers.set(beat.worker, w);
    for (const joined of this.joins.splice(0)) joined();
    this.events("worker-joined", {
      worker: beat.worker,
      machine: beat.machine,
      slots: beat.slots,
    });
  }

  private fromWorker(m: NatsMsg): void {
    let lead: WorkerLead;
    let frames: Uint8Array;
    try {
      ({ lead, rest: frames } = readLead(m.data, workerLead));
    } catch {
      return; // no worker to blame
    }
    const w = this.workers.get(lead.id);
    if (!w) return;
    w.lastSeen = Date.now(); // a busy worker's messages count as signs of life
    w.link.receive(frames);
  }

  private check(): void {
    const now = Date.now();
    for (const w of this.workers.values()) {
      const silent = now - w.lastSeen;
      if (silent > this.lossMs) this.lose(w, `no heartbeat for ${(silent / 1000).toFixed(1)} s`);
    }
  }

  private lose(w: RemoteWorker, why: string): void {
    this.workers.delete(w.worker);
    this.full = false;
    const processes = w.lose(why);
    this.events("worker-lost", { worker: w.worker, reason: why, processes });
  }

  /** NATS went down (every worker is lost now: nothing reaches them) or came back (null). */
  natsStatus(down: string | null): void {
    if (down === null) return this.events("nats-up", {});
    this.events("nats-down", { reason: down });
    for (const w of [...this.workers.values()]) this.lose(w, `NATS is unreachable (${down})`);
  }

  /**
   * The worker for a new process: the least loaded per sandbox, in turns
   * among equals; null when none is there.
   */
  pick(): RemoteWorker | null {
    const live = [...this.workers.values()].filter((w) => !w.hasEnded);
    if (!live.length) return null;
    const least = Math.min(...live.map((w) => w.share));
    const best = live.filter((w) => w.share === least);
    return best[this.turn++ % best.length];
  }

  /**
   * Right after the host started (within `ms` of it), waits until a worker
   * joins or that time is over: a call made at once (a transient host's)
   * must not fail only because no heartbeat has come yet.
   */
  async settle(ms = 1500): Promise<void> {
    const left = this.began + ms - Date.now();
    if (left <= 0 || this.workers.size) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      new Promise<void>((r) => this.joins.push(r)),
      new Promise<void>((r) => (timer = setTimeout(r, left))),
    ]);
    clearTimeout(timer);
  }

  /** The live workers, for `sausage workers`. */
  list(): WorkerInfo[] {
    const now = Date.now();
    return [...this.workers.values()].map((w) => ({
      worker: w.worker,
      machine: w.beat.machine,
      load: w.load,
      slots: w.beat.slots,
      placed: w.placed,
      joined: w.joined,
      seen_ms: now - w.lastSeen,
    }));
  }

  /** Stops listening; the workers' processes have been stopped by then. */
  close(): void {
    clearInterval(this.timer);
    for (const u of this.unsubscribe) u();
    for (const w of [...this.workers.values()]) this.lose(w, "the host is shutting down");
  }
}
