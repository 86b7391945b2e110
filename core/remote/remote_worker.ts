/**
 * A worker as the host sees it: a sandbox on another machine. The supervisor
 * starts processes on it and sends them messages exactly as on a local
 * sandbox (`GuestSandbox`); the messages travel over NATS in the sandbox
 * protocol's frames (`nats_link.ts`), checked as from a local sandbox: a
 * worker that sends a bad frame is dropped, as if it were lost. The
 * world's `/` of its processes is served here (the worker has no world
 * folder), through the host's checks, like `/proc`. When the worker is lost
 * (no heartbeat for the loss time, NATS down) every process on it ends at
 * once with "the worker … was lost".
 *
 * @module
 */

import type { FromSandbox, RunMessage, ToSandbox } from "../../sandbox/hop/protocol.ts";
import { LinkedProcesses, type ProcessHandler } from "../sandboxes/linked_processes.ts";
import { FsServer } from "../files/fs_server.ts";
import type { Mount } from "../../vfs/mount.ts";
import { type Heartbeat, type HostLead, publishFrames, type ToWorker } from "./wire.ts";
import type { NatsClient } from "./nats_client.ts";
import { NatsLink } from "./nats_link.ts";
import { checkFromSandbox } from "../../sandbox/hop/protocol_check.ts";
import { SERVED_WORLD } from "../../sandbox/hop/terms.ts";
import { NEVER_STARTED } from "../processes/process.ts";
import { CHECK_MS, KeptFiles, keptKey } from "./kept_files.ts";

/**
 * The largest world file a remote process's read-only open brings whole
 * (bytes): the worker answers its reads itself (`FsServer.handle`).
 */
export const WHOLE_FILE_MAX = 64 * 1024;

/** The most files one remote process is sent whole in its life (the worker keeps each until its close). */
export const WHOLE_FILES_MAX = 256;

/** What a remote worker needs from its world on the host. */
export interface WorkerContext {
  client: NatsClient;
  /** The worker's subject. */
  subject: string;
  /** This host run's id (`HostLead.run`). */
  run: string;
  /** The host's loss time (ms), told to the worker: it ends its processes after as long a silence. */
  lossMs: number;
  /** The world folder as a mount (with the world's disk bound): `/` of remote processes. */
  world: Mount;
  /** Allows the worker to fetch the cache entry at `dir` by its hash; returns the hash. */
  share(dir: string): string;
  /** Journals a host fault while serving a remote process's file. */
  fault(pid: string, message: string): void;
  /** Told when the worker sent what fails the check: the set drops it (`lose`). */
  untrusted(why: string): void;
}

/** One worker, from its first heartbeat until it is lost. */
export class RemoteWorker {
  private processes = new LinkedProcesses((why) => `the worker ${this.worker} was lost: ${why}`);
  /** How many files each process was sent whole. */
  private wholes = new Map<string, number>();
  /** Each process's files (`/` of the world), served here. */
  private files = new Map<string, FsServer>();
  /** The small files the worker keeps for later opens, compared before each message to it. */
  private kept: KeptFiles;
  /** Compares the kept files while any is kept. */
  private keptTimer: ReturnType<typeof setInterval> | undefined;
  /** The sandbox protocol both ways; its `receive` is fed by the set's subscription. */
  readonly link: NatsLink<ToWorker, FromSandbox>;
  /** The frame that opens each message to it. */
  private lead: HostLead;
  /** The run of the worker that joined (`Heartbeat.instance`): only its messages are taken. */
  readonly instance: string;
  /** When its last heartbeat arrived (ms). */
  lastSeen = Date.now();
  /** When it joined (ISO time). */
  readonly joined = new Date().toISOString();
  /** How many processes the host placed on it in all. */
  placed = 0;
  /**
   * When each pick that has not started its process yet was made: a burst of
   * calls picks before any starts, and each pick must count (a pick never
   * followed by a start, a call refused meanwhile, counts for a second).
   */
  private picks: number[] = [];

  constructor(public beat: Heartbeat, private ctx: WorkerContext) {
    this.instance = beat.instance;
    this.lead = { op: "host", run: ctx.run, to: beat.instance, loss_ms: ctx.lossMs };
    this.link = new NatsLink({
      client: ctx.client,
      subject: ctx.subject,
      lead: this.lead,
      check: checkFromSandbox,
      dropped: (msgs, e) => this.dropped(msgs, e),
      prepare: (msgs) => this.withDrops(msgs),
    });
    this.kept = new KeptFiles(ctx.world);
    this.link.listen((msg) => this.deliver(msg));
    this.link.closed.then((why) => {
      if (!this.hasEnded) ctx.untrusted(why);
    });
  }

  /** The worker's name, as `sausage ps` and the journal show it. */
  get worker(): string {
    return this.beat.worker;
  }

  /** How many small world files it keeps for later opens. */
  get keptFiles(): number {
    return this.kept.size;
  }

  /** True once it was lost. */
  get hasEnded(): boolean {
    return this.processes.lost !== null;
  }

  /**
   * How many processes it runs or is about to, for `sausage workers`: the
   * host's own count, or the last heartbeat's if higher (what an earlier run
   * of the host left there, until the worker has ended it).
   */
  get load(): number {
    return Math.max(this.processes.size, this.beat.load) + this.pending();
  }

  /** Picks whose process has not started yet (each counts for at most a second). */
  private pending(): number {
    const now = Date.now();
    while (this.picks.length && now - this.picks[0] > 1000) this.picks.shift();
    return this.picks.length;
  }

  /** Counts a placement on it until its process starts. */
  picked(): void {
    this.picks.push(Date.now());
  }

  /**
   * Its load per sandbox, to compare workers (and local sandboxes) of
   * different sizes. Counted by the host alone: a heartbeat is up to a second
   * old, and one sent during a burst that has since ended made every new
   * process go to the worker whose beat came in a lull (seen in CI: six of
   * six on one worker of three). A worker serves one run of the host, which
   * ends an earlier run's processes when it greets the worker.
   */
  get share(): number {
    return (this.processes.size + this.pending()) / Math.max(1, this.beat.slots);
  }

  /** When it was asked for a heartbeat since its last one (ms), or null. */
  pingedAt: number | null = null;

  /** Asks for a heartbeat now (once per silence): a slow one is not taken for a lost one. */
  ping(): void {
    if (this.pingedAt !== null || this.hasEnded) return;
    this.pingedAt = Date.now();
    try {
      publishFrames(this.ctx.client, this.ctx.subject, { ...this.lead, ping: true }, []);
    } catch { /* NATS is down: the worker is lost anyway */ }
  }

  /**
   * Takes a new heartbeat, and answers it: the answer tells a new worker
   * this host's run (what an earlier run left there ends then) and is the
   * worker's sign that its host is there.
   */
  heard(beat: Heartbeat): void {
    // Beats count up: one not past the last (a replay) is no sign of life.
    if (beat !== this.beat && beat.seq <= this.beat.seq) return;
    this.beat = beat;
    this.lastSeen = Date.now();
    this.pingedAt = null;
    if (this.hasEnded) return;
    try {
      publishFrames(this.ctx.client, this.ctx.subject, { ...this.lead, ack: beat.seq }, []);
    } catch { /* NATS is down: the worker is lost anyway */ }
  }

  /** Starts a process there (`GuestSandbox.start`). */
  start(msg: RunMessage, handler: ProcessHandler): void {
    if ((msg.preopens?.length || msg.onlyPreopens) && !this.hasEnded) {
      const error = `a command with extra folders runs on the host only (${NEVER_STARTED})`;
      return handler({ op: "exit", pid: msg.pid, status: 1, error });
    }
    const added = this.processes.add(msg.pid, (m) => {
      if (m.op === "exit") {
        this.files.get(msg.pid)?.close();
        this.files.delete(msg.pid);
        this.wholes.delete(msg.pid);
      }
      handler(m);
    });
    if (!added) return;
    this.picks.shift();
    this.files.set(
      msg.pid,
      new FsServer(
        { world: this.ctx.world },
        (f) => this.ctx.fault(msg.pid, f.message),
        true,
      ),
    );
    this.placed++;
    const { preopens: _p, ...run } = msg;
    // The component by its cache entry's key (the worker fetches it); `/` served from here.
    this.link.send({ ...run, dir: this.ctx.share(msg.dir), world: SERVED_WORLD });
  }

  /** Sends a message to a process there (`GuestSandbox.send`); pings are the heartbeats' job. */
  send(msg: ToSandbox): void {
    if (this.hasEnded || msg.op === "ping" || msg.op === "run") return;
    this.link.send(msg);
  }

  /**
   * A message from the worker, checked by `checkFromSandbox` (`fs` requests
   * are checked again by `FsServer`).
   */
  private deliver(msg: FromSandbox): void {
    if (msg.op === "ready" || msg.op === "pong") return; // its sandboxes' own: not for the host
    const files = msg.op === "fs" && msg.mount === "world" && this.files.get(msg.pid);
    if (files) {
      // Whole files until the process has had WHOLE_FILES_MAX of them (the worker keeps each
      // until its close: this bounds what a process that never closes holds there).
      const wholes = this.wholes.get(msg.pid) ?? 0;
      files.handle(msg, wholes < WHOLE_FILES_MAX ? WHOLE_FILE_MAX : 0).then((got) => {
        const { seen, ...reply } = got;
        if (reply.whole) this.wholes.set(msg.pid, (this.wholes.get(msg.pid) ?? 0) + 1);
        if (!this.processes.has(msg.pid)) return;
        // Kept by the worker for later opens of its path, if it has not changed lately.
        const key = reply.whole && seen && keptKey(msg.call);
        if (key && this.kept.offer(key, seen.stat, seen.at)) {
          reply.whole = { ...reply.whole!, keep: key };
          this.keptTimer ??= setInterval(() => this.checkKept(), CHECK_MS);
        }
        this.send(reply);
      });
    } else this.processes.deliver(msg);
  }

  /**
   * A batch about to go: the kept files that changed are dropped first, and
   * a file kept in this batch but dropped meanwhile goes for its handle only.
   */
  private withDrops(batch: ToWorker[]): ToWorker[] {
    const drops = this.kept.check();
    if (drops === null) return batch;
    if (drops === "all") return [{ op: "uncache", keys: [], all: true }, ...batch];
    const gone = new Set(drops);
    const out = batch.map((m) => {
      if (m.op !== "fs-reply") return m;
      const { whole } = m as { whole?: { keep?: string } };
      if (whole?.keep === undefined || !gone.has(whole.keep)) return m;
      const { keep: _k, ...rest } = whole;
      return { ...m, whole: rest } as ToWorker;
    });
    return [{ op: "uncache", keys: drops }, ...out];
  }

  /** Between messages: the kept files that changed are dropped at once. */
  private checkKept(): void {
    if (this.hasEnded || this.kept.size === 0) {
      clearInterval(this.keptTimer);
      this.keptTimer = undefined;
      return;
    }
    const drops = this.kept.check();
    if (drops === "all") this.link.send({ op: "uncache", keys: [], all: true });
    else if (drops) this.link.send({ op: "uncache", keys: drops });
  }

  /** Messages NATS would not take: their processes end now (the worker cannot hear them). */
  private dropped(batch: ToWorker[], e: unknown): void {
    this.kept.lost();
    const why = e instanceof Error ? e.message : String(e);
    for (const msg of batch) {
      if (msg.op === "forget" || msg.op === "uncache") continue;
      const never = msg.op === "run" ? ` (${NEVER_STARTED})` : "";
      this.processes.end(
        msg.pid,
        `a message to the worker ${this.worker} was lost${never}: ${why}`,
      );
    }
  }

  /** Declares it lost: its processes end now, and it is told to drop them (if it can hear). */
  lose(why: string): number {
    if (this.hasEnded) return 0;
    const ended = this.processes.lose(why);
    clearInterval(this.keptTimer);
    this.kept.clear();
    this.link.close(why);
    // Past the link (closed already if the worker sent a bad frame).
    try {
      publishFrames(this.ctx.client, this.ctx.subject, this.lead, [{ op: "forget" }]);
    } catch { /* NATS is down: the worker drops them when it notices */ }
    return ended;
  }
}
