/**
 * What a host and its workers say over NATS, and on which subjects. A worker
 * speaks the sandbox protocol (`sandbox/protocol.ts`) with the host, in
 * batches, plus heartbeats and component fetches. Every subject of a world
 * starts with `sausage.<world>.`, so per-world credentials can allow that
 * prefix and nothing else (PROTOCOL.md, "Workers over NATS").
 *
 * @module
 */

import type { FromSandbox, RunMessage, ToSandbox } from "../../sandbox/protocol.ts";
import { parseExact } from "../../rpc/exact_json.ts";

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
 * A run message as it goes to a worker: the component named by its cache
 * entry's hash (the worker fetches it) instead of a host folder, and no
 * world folder (the host serves `/`).
 */
export type RemoteRun = Omit<RunMessage, "dir" | "world" | "preopens"> & { component: string };

/** Host → worker: sandbox messages, a remote run, or "forget everything" (it was declared lost). */
export type ToWorker = Exclude<ToSandbox, RunMessage | { op: "ping" }> | RemoteRun | {
  op: "forget";
};

/** A batch of messages from the host to a worker. */
export interface ToWorkerBatch {
  /** The host's run (random, per start): a new one means the last host's processes are gone. */
  h: string;
  m: ToWorker[];
}

/** A batch of messages from a worker to the host. */
export interface ToHostBatch {
  /** The worker's id. */
  w: string;
  m: FromSandbox[];
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
 * Publishes `msgs` wrapped by `wrap`, split into as many messages as the
 * server's `max_payload` needs; a single message too big for it throws.
 */
export function publishSplit<T>(
  client: { publish(subject: string, data: Uint8Array): void; maxPayload: number },
  subject: string,
  msgs: T[],
  wrap: (m: T[]) => unknown,
): void {
  const bytes = encode(wrap(msgs));
  if (bytes.length <= client.maxPayload) return client.publish(subject, bytes);
  if (msgs.length === 1) {
    throw new Error(
      `a message of ${bytes.length} bytes is over NATS's max_payload (${client.maxPayload})`,
    );
  }
  const half = msgs.length >> 1;
  publishSplit(client, subject, msgs.slice(0, half), wrap);
  publishSplit(client, subject, msgs.slice(half), wrap);
}
