/**
 * The compiled components a host lets its workers fetch: only the cache
 * entries it has placed on a worker, by key (`<engine folder>.<SHA-256 of
 * plugin.wasm>`), each file in chunks that fit NATS's `max_payload`. A
 * request is `{entry}` (the manifest) or `{entry, file, offset}`; a reply's
 * first byte is 0 (the bytes follow) or 1 (an error message follows).
 *
 * @module
 */

import type { NatsClient, NatsMsg } from "./nats_client.ts";
import { decode } from "./wire.ts";

/** What a fetch asks for. */
export interface FetchRequest {
  entry: string;
  file?: string;
  offset?: number;
}

/** The bytes of one reply at most (a margin under the server's `max_payload`). */
export function chunkSize(maxPayload: number): number {
  return Math.max(4096, maxPayload - 4096);
}

const encoder = new TextEncoder();

/** Entries shared with workers, by key. */
export class ComponentShelf {
  private dirs = new Map<string, string>();

  /** Shares the entry at `dir` and returns its key. */
  share(dir: string): string {
    const parts = dir.split("/");
    const key = `${parts.at(-2)}.${parts.at(-1)}`;
    this.dirs.set(key, dir);
    return key;
  }

  /** Answers one fetch. */
  async serve(client: NatsClient, m: NatsMsg): Promise<void> {
    if (!m.reply) return;
    let reply: Uint8Array;
    try {
      reply = await this.read(decode<FetchRequest>(m.data), chunkSize(client.maxPayload));
    } catch (e) {
      const text = encoder.encode(e instanceof Error ? e.message : String(e));
      reply = new Uint8Array([1, ...text]);
    }
    try {
      client.publish(m.reply, reply);
    } catch { /* NATS is down: the worker retries */ }
  }

  private async read(req: FetchRequest, max: number): Promise<Uint8Array> {
    const dir = this.dirs.get(req.entry);
    if (!dir) throw new Error(`no component ${JSON.stringify(req.entry)} was placed here`);
    const name = req.file ?? "manifest.json";
    const manifest = JSON.parse(await Deno.readTextFile(`${dir}/manifest.json`));
    if (name !== "manifest.json" && !Object.hasOwn(manifest.files ?? {}, name)) {
      throw new Error(`no file ${JSON.stringify(name)} in ${req.entry}`);
    }
    const offset = Number.isSafeInteger(req.offset) ? req.offset! : 0;
    using file = await Deno.open(`${dir}/${name}`);
    await file.seek(offset, Deno.SeekMode.Start);
    const buf = new Uint8Array(max + 1);
    buf[0] = 0;
    let n = 1;
    while (n < buf.length) {
      const got = await file.read(buf.subarray(n));
      if (got === null) break;
      n += got;
    }
    return buf.subarray(0, n);
  }
}
