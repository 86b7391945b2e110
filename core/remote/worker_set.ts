/**
 * The workers of a world, on its host: who is there (heartbeats), who is
 * lost (no heartbeat for `lossMs`, or NATS down), their messages to the
 * host, and the component entries they fetch. Joins, losses and
 * placements are journaled (`worker-joined`, `worker-lost`, `placed`).
 *
 * @module
 */

import type { NatsClient, NatsMsg, PermissionRefusal } from "./nats_client.ts";
import {
  decode,
  type Heartbeat,
  publishFrames,
  readLead,
  type Subjects,
  workerIdProblem,
  type WorkerLead,
} from "./wire.ts";
import { DEFAULT_LOSS_MS } from "./wire.ts";
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
  /** How many small world files it keeps for its processes' opens (`kept_files.ts`). */
  kept: number;
}

export { DEFAULT_LOSS_MS };

/** The lead frame of a worker's message (`wire.ts`), checked. */
function workerLead(v: unknown): WorkerLead {
  const m = v as Partial<WorkerLead> | null;
  if (m?.op !== "worker" || typeof m.id !== "string" || typeof m.instance !== "string") {
    throw new Error("no worker's lead");
  }
  return m as WorkerLead;
}

/** The most refused worker runs remembered (each is journaled once). */
const MAX_REFUSED = 1024;

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
  /** How often silent workers are looked for (ms). */
  private get checkMs(): number {
    return Math.min(100, this.lossMs / 8);
  }
  /** When they were last looked for. */
  private lastCheck = Date.now();
  /** Refused runs of workers (journaled once each). */
  private refused = new Set<string>();
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
      this.client.subscribe(this.subjects.heartbeats, (m) => this.heartbeat(m)),
      this.client.subscribe(this.subjects.fromWorkers, (m) => this.fromWorker(m)),
      this.client.subscribe(this.subjects.blobs, (m) => this.shelf.serve(this.client, m)),
    );
    this.lastCheck = Date.now();
    const timer = setInterval(() => this.check(), this.checkMs);
    Deno.unrefTimer(timer);
    this.timer = timer;
  }

  /**
   * A heartbeat: from the worker its subject names (the server lets each
   * worker publish on its own only), of the run of it that joined first; a
   * second live run with that id is refused, and told so.
   */
  private heartbeat(m: NatsMsg): void {
    const id = this.subjects.idOf(m.subject);
    let beat: Heartbeat;
    try {
      beat = decode<Heartbeat>(m.data);
      if (beat.worker !== id || workerIdProblem(id) !== null) return;
      if (typeof beat.instance !== "string" || !/^[A-Za-z0-9-]{1,64}$/.test(beat.instance)) return;
      if (!Number.isSafeInteger(beat.seq)) return;
    } catch {
      return;
    }
    const known = this.workers.get(id);
    if (known && known.instance === beat.instance) return known.heard(beat);
    if (known) return this.refuse(known, beat);
    if (this.workers.size >= this.maxWorkers) {
      if (!this.full) {
        this.full = true; // said once until one leaves
        this.events("limit", { limit: "max_workers", value: this.maxWorkers, worker: id });
      }
      return;
    }
    const w = new RemoteWorker(beat, {
      client: this.client,
      subject: this.subjects.worker(id),
      run: this.run,
      lossMs: this.lossMs,
      world: this.world,
      share: (dir) => this.shelf.share(dir),
      fault: (pid, message) => this.events("host-fault", { pid, error: message }),
      untrusted: (why) => this.lose(w, `it sent what the host does not accept: ${why}`),
    });
    this.workers.set(id, w);
    for (const joined of this.joins.splice(0)) joined();
    this.events("worker-joined", {
      worker: id,
      machine: beat.machine,
      slots: beat.slots,
      instance: beat.instance,
    });
    w.heard(beat);
  }

  /** Turns away a second run of a live worker's id: it is told, and it is journaled once. */
  private refuse(live: RemoteWorker, beat: Heartbeat): void {
    const reason = `another worker with the id ${live.worker} is live (on ${live.beat.machine}, ` +
      `joined ${live.joined}): give each worker its own id and credentials`;
    try {
      publishFrames(this.client, this.subjects.worker(live.worker), {
        op: "host",
        run: this.run,
        to: beat.instance,
        refused: reason,
      }, []);
    } catch { /* NATS is down: it hears at its next beat */ }
    if (this.refused.has(beat.instance)) return;
    if (this.refused.size >= MAX_REFUSED) this.refused.clear();
    this.refused.add(beat.instance);
    this.events("worker-refused", {
      worker: live.worker,
      machine: beat.machine,
      instance: beat.instance,
      reason,
    });
  }

  /** A message about processes: only from the run of the worker its subject names. */
  private fromWorker(m: NatsMsg): void {
    let lead: WorkerLead;
    let frames: Uint8Array;
    try {
      ({ lead, rest: frames } = readLead(m.data, workerLead));
    } catch {
      return; // no worker to blame
    }
    const w = this.workers.get(this.subjects.idOf(m.subject));
    if (!w || lead.id !== w.worker || lead.instance !== w.instance) return;
    w.lastSeen = Date.now(); // a busy worker's messages count as signs of life
    w.link.receive(frames);
  }

  /**
   * Looks for silent workers: one silent for 60 % of `lossMs` is asked for a
   * heartbeat; one silent for `lossMs` is lost only once a round trip to
   * the server finds nothing from it ({@link confirm}). Time the host
   * itself was held up (a loaded machine: this check came late) does not
   * count as their silence: their messages waited for the host, not the
   * other way round.
   */
  private check(): void {
    const now = Date.now();
    const late = now - this.lastCheck - this.checkMs;
    this.lastCheck = now;
    if (late > 250) { for (const w of this.workers.values()) w.lastSeen += late; }
    const silent: RemoteWorker[] = [];
    for (const w of this.workers.values()) {
      const quiet = now - w.lastSeen;
      if (quiet > this.lossMs) silent.push(w);
      else if (quiet > this.lossMs * 0.6) w.ping();
    }
    if (silent.length) void this.confirm(silent);
  }

  /** Whether a round trip to the server for {@link confirm} is under way. */
  private confirming = false;

  /**
   * Loses the workers of `silent` that are still silent after a round trip
   * to the server (a PING answered by its PONG; each was pinged first): the
   * server sends in order, so every heartbeat or answer a worker sent before
   * the PONG has been handled by then, however late this host's loop came
   * to it. A loaded host (its loop blocked or starved past `lossMs`) so
   * never takes its own delay for its workers' silence; a worker that is
   * really gone (or stopped: connected but mute) is lost one round trip
   * after `lossMs`. When the round trip fails (NATS down, or no PONG in
   * 10 s) nobody is lost here: the next check tries again, and NATS down
   * loses every worker by itself (`natsStatus`).
   */
  private async confirm(silent: RemoteWorker[]): Promise<void> {
    if (this.confirming) return;
    this.confirming = true;
    const heard = new Map(silent.map((w) => (w.ping(), [w, w.lastSeen])));
    try {
      await this.client.flush();
    } catch {
      return;
    } finally {
      this.confirming = false;
    }
    const now = Date.now();
    for (const [w, seen] of heard) {
      if (this.workers.get(w.worker) !== w || w.lastSeen !== seen) continue; // heard meanwhile
      const quiet = now - w.lastSeen;
      // Pinged just now (this host was too held up to ask earlier): its answer has until the
      // next round trip, as long as an ordinary silence gives it (40 % of lossMs).
      if (quiet <= this.lossMs || now - (w.pingedAt ?? now) < this.lossMs * 0.4) continue;
      this.lose(
        w,
        `no heartbeat for ${(quiet / 1000).toFixed(1)} s (the last #${w.beat.seq}), ` +
          "nor an answer to a ping before the server's PONG",
      );
    }
  }

  private lose(w: RemoteWorker, why: string): void {
    this.workers.delete(w.worker);
    this.full = false;
    const processes = w.lose(why);
    this.events("worker-lost", { worker: w.worker, reason: why, processes });
  }

  /**
   * The server refused one of the host's publishes or subscriptions (its
   * credentials do not allow it): journaled; a worker whose subject was
   * refused is lost (nothing reaches it), its processes end with why.
   */
  refusedByNats(r: PermissionRefusal): void {
    this.events("nats-refused", { operation: r.operation, subject: r.subject, reason: r.message });
    for (const w of [...this.workers.values()]) {
      if (r.subject === this.subjects.worker(w.worker)) {
        this.lose(w, `NATS refused the host's message to it: ${r.message}`);
      }
    }
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
      kept: w.keptFiles,
    }));
  }

  /** Stops listening; the workers' processes have been stopped by then. */
  close(): void {
    clearInterval(this.timer);
    for (const u of this.unsubscribe) u();
    for (const w of [...this.workers.values()]) this.lose(w, "the host is shutting down");
  }
}
