/**
 * What a host and its workers say over NATS, and on which subjects. A worker
 * speaks the sandbox protocol (`sandbox/hop/protocol.ts`) with the host, in the
 * frames of `sandbox/hop/frames.ts` (each NATS message: a lead frame naming its
 * sender, then the messages of one turn), plus heartbeats and component
 * fetches (JSON). Every subject of a world
 * starts with `sausage.<world>.`, so per-world credentials can allow that
 * prefix and nothing else (PROTOCOL.md, "Workers over NATS").
 *
 * @module
 */

import type { ToSandbox } from "../../sandbox/hop/protocol.ts";
import { parseExact } from "../../rpc/exact_json.ts";
import { encodeFrames, FrameError } from "../../sandbox/hop/frames.ts";
import { checkToSandbox } from "../../sandbox/hop/protocol_check.ts";

/**
 * How long a worker may stay silent before the host loses it, and the host
 * before a worker ends its processes (ms; `loss_ms`): two and a half
 * heartbeats, so that with checks every 100 ms the calls of a dead worker
 * are answered within 3 s of its death.
 */
export const DEFAULT_LOSS_MS = 2500;

/** A world name as subjects carry it: 1 to 64 of a-z, A-Z, 0-9, `-` and `_`. */
const WORLD_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** Why `name` cannot name a world on NATS, or null when it can. */
export function worldNameProblem(name: string): string | null {
  return WORLD_NAME.test(name)
    ? null
    : `a world's NATS name is 1 to 64 of A-Z, a-z, 0-9, - and _: ${JSON.stringify(name)} is not`;
}

/** A worker's id as subjects carry it: 1 to 64 of a-z, A-Z, 0-9, `-` and `_`. */
const WORKER_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** Why `id` cannot name a worker, or null when it can. */
export function workerIdProblem(id: string): string | null {
  return WORKER_ID.test(id)
    ? null
    : `a worker's id is 1 to 64 of A-Z, a-z, 0-9, - and _: ${JSON.stringify(id)} is not`;
}

/** What a NATS user may publish and subscribe to (a server config's `permissions`). */
export interface Permissions {
  publish: string[];
  subscribe: string[];
}

/**
 * The subjects of one world. Each worker has its own: it speaks on
 * `hb.<id>`, `host.<id>` and `blob.<id>` and hears on `w.<id>` and its
 * inbox, and its credentials allow nothing else ({@link workerPermissions}),
 * so the host knows who speaks by the subject alone.
 */
export class Subjects {
  constructor(readonly world: string) {
    const problem = worldNameProblem(world);
    if (problem) throw new Error(problem);
  }
  /** Every subject of the world (what the host's credentials allow). */
  get all(): string {
    return `sausage.${this.world}.>`;
  }
  /** A worker's heartbeats, to the host. */
  heartbeat(id: string): string {
    return `sausage.${this.world}.hb.${id}`;
  }
  /** Every worker's heartbeats (the host's subscription). */
  get heartbeats(): string {
    return `sausage.${this.world}.hb.*`;
  }
  /** A worker's messages about processes, to the host. */
  toHost(id: string): string {
    return `sausage.${this.world}.host.${id}`;
  }
  /** Every worker's messages (the host's subscription). */
  get fromWorkers(): string {
    return `sausage.${this.world}.host.*`;
  }
  /** A worker's component fetches (requests; the replies go to its inbox). */
  blob(id: string): string {
    return `sausage.${this.world}.blob.${id}`;
  }
  /** Every worker's fetches (the host's subscription). */
  get blobs(): string {
    return `sausage.${this.world}.blob.*`;
  }
  /** A worker's reply subjects' prefix. */
  inbox(id: string): string {
    return `sausage.${this.world}.inbox.${id}`;
  }
  /** The host's reply subjects' prefix. */
  get hostInbox(): string {
    return `sausage.${this.world}.hostinbox`;
  }
  /** The host's messages to one worker. */
  worker(id: string): string {
    return `sausage.${this.world}.w.${id}`;
  }
  /** The worker whose subject `subject` is (its last token). */
  idOf(subject: string): string {
    return subject.slice(subject.lastIndexOf(".") + 1);
  }
  /** What worker `id`'s credentials must allow, and nothing more. */
  workerPermissions(id: string): Permissions {
    const problem = workerIdProblem(id);
    if (problem) throw new Error(problem);
    return {
      publish: [this.heartbeat(id), this.toHost(id), this.blob(id)],
      subscribe: [this.worker(id), `${this.inbox(id)}.>`],
    };
  }
  /** What the host's credentials allow: the world's subjects. */
  hostPermissions(): Permissions {
    return { publish: [this.all], subscribe: [this.all] };
  }
}

/** A worker's heartbeat (about every second). */
export interface Heartbeat {
  /** The worker's id (its subject's last token). */
  worker: string;
  /** This run of the worker (random, per start): two live with one id are refused but one. */
  instance: string;
  /** Counts up by one a beat: a gap shows beats lost on the way. */
  seq: number;
  /** The machine it runs on. */
  machine: string;
  /** How many processes it runs now. */
  load: number;
  /** How many sandboxes it runs them in (its capacity, relative to others'). */
  slots: number;
}

/**
 * Host → worker: drop these kept files (`kept_files.ts`), or all of them;
 * it comes before anything else of its NATS message.
 */
export interface Uncache {
  op: "uncache";
  /** The kept files' keys (`keptKey`). */
  keys: string[];
  /** Drop every kept file (a message to the worker was lost). */
  all?: boolean;
}

/**
 * Host → worker: the sandbox protocol's messages (a run names its component
 * by the cache entry's key in `dir`, and its `world` is `SERVED_WORLD`: the
 * host serves `/`), "forget everything" (it was declared lost), or "drop
 * these kept files". No pings: heartbeats say a worker is there.
 */
export type ToWorker = Exclude<ToSandbox, { op: "ping" }> | { op: "forget" } | Uncache;

/**
 * The frame that opens each NATS message to a worker: which run of the host
 * speaks, to which run of the worker; alone, it answers a heartbeat (`ack`),
 * asks for one (`ping`) or turns the worker away (`refused`).
 */
export interface HostLead {
  op: "host";
  /** The host's run (random, per start): a new one means the last host's processes are gone. */
  run: string;
  /** The worker's `instance` it is for: another run of the worker with that id ignores it. */
  to: string;
  /** The host's loss time (ms): a worker that hears nothing for this long ends its processes. */
  loss_ms?: number;
  /** The heartbeat (`seq`) it answers. */
  ack?: number;
  /** Asks for a heartbeat now (the worker was silent). */
  ping?: boolean;
  /** Why this worker is turned away (another live worker has its id). */
  refused?: string;
}

/** The frame that opens each NATS message to the host: which worker speaks. */
export interface WorkerLead {
  op: "worker";
  id: string;
  /** Its run (`Heartbeat.instance`). */
  instance: string;
}

/** A message from the host, checked (a worker's side). */
export function checkToWorker(v: unknown): ToWorker {
  if ((v as { op?: unknown })?.op === "forget") return { op: "forget" };
  if ((v as { op?: unknown })?.op === "uncache") {
    const { keys, all } = v as Partial<Uncache>;
    if (!Array.isArray(keys) || !keys.every((k) => typeof k === "string")) {
      throw new FrameError("an uncache without its keys");
    }
    return { op: "uncache", keys, all: all === true };
  }
  const m = checkToSandbox(v);
  if (m.op === "ping") throw new FrameError("a ping (heartbeats say a worker is there)");
  return m;
}

/**
 * Splits one NATS message of frames into its opening frame (checked by
 * `check`) and the bytes of the frames after it (`decodeFrames`' input).
 */
export function readLead<T>(data: Uint8Array, check: (lead: unknown) => T): {
  lead: T;
  rest: Uint8Array;
} {
  // `frames.ts`' layout: two u32 lengths, the header; a lead has no text.
  const bad = () => new FrameError("a message that does not open with its sender's frame");
  if (data.length < 8) throw bad();
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const size = 8 + view.getUint32(0, true);
  if (view.getUint32(4, true) !== 0 || size > data.length) throw bad();
  let lead: unknown;
  try {
    lead = JSON.parse(decoder.decode(data.subarray(8, size)));
  } catch {
    throw bad();
  }
  return { lead: check(lead), rest: data.subarray(size) };
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Encodes a message as JSON (big integers kept: `parseExact`'s values print exactly). */
export function encode(msg: unknown): Uint8Array {
  return encoder.encode(JSON.stringify(msg));
}

/** Decodes a message, big integers kept exactly. */
export function decode<T>(data: Uint8Array): T {
  return parseExact(decoder.decode(data)) as T;
}

/**
 * Collects messages for one subject and publishes them in batches: all
 * those of one turn of the event loop, up to `maxBytes` of JSON in one.
 */
export class Batcher<T> {
  private queue: T[] = [];
  private scheduled = false;

  /**
   * @param flush publishes one batch (throws when NATS is down: the batch is dropped)
   * @param onDrop told of a batch that could not be published
   */
  constructor(
    private flush: (batch: T[]) => void,
    private onDrop: (batch: T[], e: unknown) => void = () => {},
  ) {}

  /** Queues a message for the next batch. */
  push(msg: T): void {
    this.queue.push(msg);
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => {
      this.scheduled = false;
      const batch = this.queue;
      this.queue = [];
      try {
        this.flush(batch);
      } catch (e) {
        this.onDrop(batch, e);
      }
    });
  }
}

/**
 * Publishes `msgs` as frames (`sandbox/hop/frames.ts`), each NATS message
 * opening with `lead`, split into as many messages as the server's
 * `max_payload` needs; a single message too big for it throws.
 */
export function publishFrames(
  client: { publish(subject: string, data: Uint8Array): void; maxPayload: number },
  subject: string,
  lead: HostLead | WorkerLead,
  msgs: readonly object[],
): void {
  const bytes = encodeFrames([lead, ...msgs]);
  if (bytes.length <= client.maxPayload) return client.publish(subject, bytes);
  if (msgs.length === 1) {
    throw new Error(
      `a message of ${bytes.length} bytes is over NATS's max_payload (${client.maxPayload})`,
    );
  }
  const half = msgs.length >> 1;
  publishFrames(client, subject, lead, msgs.slice(0, half));
  publishFrames(client, subject, lead, msgs.slice(half));
}
