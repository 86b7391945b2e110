/**
 * What a host and its workers say over NATS, and on which subjects. A worker
 * speaks the sandbox protocol (`sandbox/protocol.ts`) with the host, in the
 * frames of `sandbox/frames.ts` (each NATS message: a lead frame naming its
 * sender, then the messages of one turn), plus heartbeats and component
 * fetches (JSON). Every subject of a world
 * starts with `sausage.<world>.`, so per-world credentials can allow that
 * prefix and nothing else (PROTOCOL.md, "Workers over NATS").
 *
 * @module
 */

import type { ToSandbox } from "../../sandbox/protocol.ts";
import { parseExact } from "../../rpc/exact_json.ts";
import { encodeFrames, FrameError } from "../../sandbox/frames.ts";
import { checkToSandbox } from "../../sandbox/protocol_check.ts";

/** A world name as subjects carry it: 1 to 64 of a-z, A-Z, 0-9, `-` and `_`. */
const WORLD_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** Why `name` cannot name a world on NATS, or null when it can. */
export function worldNameProblem(name: string): string | null {
  return WORLD_NAME.test(name)
    ? null
    : `a world's NATS name is 1 to 64 of A-Z, a-z, 0-9, - and _: ${JSON.stringify(name)} is not`;
}

/** The subjects of one world. */
export class Subjects {
  constructor(readonly world: string) {
    const problem = worldNameProblem(world);
    if (problem) throw new Error(problem);
  }
  /** Every subject of the world (what its credentials allow). */
  get all(): string {
    return `sausage.${this.world}.>`;
  }
  /** Workers' heartbeats, to the host. */
  get heartbeat(): string {
    return `sausage.${this.world}.hb`;
  }
  /** Workers' messages about processes, to the host. */
  get toHost(): string {
    return `sausage.${this.world}.host`;
  }
  /** Component fetches (request and reply). */
  get blob(): string {
    return `sausage.${this.world}.blob`;
  }
  /** Reply subjects' prefix. */
  get inbox(): string {
    return `sausage.${this.world}.inbox`;
  }
  /** The host's messages to one worker. */
  worker(id: string): string {
    return `sausage.${this.world}.w.${id}`;
  }
}

/** A worker's heartbeat (about every second). */
export interface Heartbeat {
  /** The worker's id: unique per worker process. */
  worker: string;
  /** The machine it runs on. */
  machine: string;
  /** How many processes it runs now. */
  load: number;
  /** How many sandboxes it runs them in (its capacity, relative to others'). */
  slots: number;
}

/**
 * Host → worker: the sandbox protocol's messages (a run names its component
 * by the cache entry's key in `dir`, and its `world` is `SERVED_WORLD`: the
 * host serves `/`), or "forget everything" (it was declared lost). No pings:
 * heartbeats say a worker is there.
 */
export type ToWorker = Exclude<ToSandbox, { op: "ping" }> | { op: "forget" };

/** The frame that opens each NATS message to a worker: which run of the host speaks. */
export interface HostLead {
  op: "host";
  /** The host's run (random, per start): a new one means the last host's processes are gone. */
  run: string;
}

/** The frame that opens each NATS message to the host: which worker speaks. */
export interface WorkerLead {
  op: "worker";
  id: string;
}

/** A message from the host, checked (a worker's side). */
export function checkToWorker(v: unknown): ToWorker {
  if ((v as { op?: unknown })?.op === "forget") return { op: "forget" };
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
 * Publishes `msgs` as frames (`sandbox/frames.ts`), each NATS message
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
