/**
 * MCP over stdio (an MCP `Transport`): one JSON-RPC message per line on
 * stdin and stdout, read with the host's line splitter (linear time, memory
 * bounded by `max`). A line over `max` is not read: it is answered at once
 * with -32600 and its size (its id taken from either end of the line, where
 * JSON-RPC clients put it), and the session goes on. A line that is not JSON
 * gets -32700, one that is not UTF-8 -32700 with the bad byte's offset, one
 * nested past the limit (`MAX_DEPTH`) or not a JSON-RPC message -32600,
 * each with a one-line reason. stdin's end closes the transport.
 *
 * What waits to be written to stdout is bounded (`maxQueue`: the world's
 * `client_queue_mib`): a client that stops reading while it sends gets its
 * session closed, with one line on stderr, instead of a process that grows
 * without bound.
 *
 * The SDK's own stdio transport copies its whole buffer on every chunk and
 * searches it again for a newline: a 20 MB line took minutes and then closed
 * the session without an answer.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/shared/transport"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import { type JSONRPCMessage, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import { JsonDepthError, parseExact } from "../rpc/exact_json.ts";
import { notUtf8Error } from "../rpc/utf8_check.ts";
import { LineSplitter, type RawReader, readLines, type SkippedLine } from "../rpc/line_splitter.ts";

/** A JSON-RPC id at the start (`{"jsonrpc":"2.0","id":7,`) or at the end (`,"id":7}`) of a line. */
const ID = String.raw`(-?\d+|"(?:[^"\\]|\\.)*")`;
const HEAD_ID = new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${ID}`);
const TAIL_ID = new RegExp(String.raw`"id"\s*:\s*${ID}\s*\}\s*$`);

/** The id of an over-long message, from its ends; null when neither end shows it. */
export function edgeId({ head, tail }: Pick<SkippedLine, "head" | "tail">): string | number | null {
  const m = HEAD_ID.exec(head) ?? TAIL_ID.exec(tail);
  return m ? JSON.parse(m[1]) : null;
}

/** The id of a message `parseExact` refused for its depth (`JSON.parse` takes any depth). */
function plainId(text: string): string | number | null {
  try {
    const id = JSON.parse(text)?.id;
    return typeof id === "string" || typeof id === "number" ? id : null;
  } catch {
    return null;
  }
}

/** Something written to directly, like `Deno.stdout`. */
export interface RawWriter {
  /** Writes some of `p`; resolves with how many bytes. */
  write(p: Uint8Array): Promise<number>;
}

/** MCP over a process's stdin and stdout. */
export class StdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport["onmessage"];
  private closed = false;
  private writing: Promise<void> = Promise.resolve();
  private encoder = new TextEncoder();
  /** Bytes handed to `send` and not yet written to stdout. */
  private queued = 0;

  /**
   * @param max the longest line read, in bytes (`line_mib` of the world)
   * @param input stdin
   * @param output stdout
   * @param maxQueue the most bytes waiting for stdout (`client_queue_mib`): past it the session
   *   closes, after `overflow` hears how many waited (one message longer goes when nothing waits)
   * @param overflow told once, at the overflow
   */
  constructor(
    private max: number,
    private input: RawReader = Deno.stdin,
    private output: RawWriter = Deno.stdout,
    private maxQueue = Infinity,
    private overflow: (queuedBytes: number) => void = () => {},
  ) {}

  start(): Promise<void> {
    const splitter = new LineSplitter(this.max, {
      line: (text) => this.line(text),
      skipped: (s) => this.tooLong(s),
      invalidUtf8: (offset, text) => this.notUtf8(offset, text),
    });
    readLines(this.input, splitter)
      .catch((e) => this.onerror?.(e instanceof Error ? e : new Error(String(e))))
      .finally(() => this.close());
    return Promise.resolve();
  }

  private fail(id: string | number | null, code: number, message: string): void {
    this.send({ jsonrpc: "2.0", id, error: { code, message } } as unknown as JSONRPCMessage)
      .catch(() => {});
  }

  private line(text: string): void {
    if (text.trim() === "") return;
    let value: unknown;
    try {
      value = parseExact(text);
    } catch (e) {
      if (e instanceof JsonDepthError) return this.fail(plainId(text), -32600, e.message);
      return this.fail(null, -32700, `not JSON: ${e instanceof Error ? e.message : e}`);
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success) {
      const id = (value as { id?: unknown })?.id;
      const known = typeof id === "string" || typeof id === "number" ? id : null;
      return this.fail(known, -32600, "not a JSON-RPC 2.0 request, notification or response");
    }
    this.onmessage?.(parsed.data);
  }

  /** A line that is not UTF-8: -32700 with the bad byte's offset, under its id when it shows. */
  private notUtf8(offset: number, text: string): void {
    let id: string | number | null = null;
    try {
      const v = (parseExact(text) as { id?: unknown })?.id;
      if (typeof v === "string" || typeof v === "number") id = v;
    } catch { /* no id */ }
    const e = notUtf8Error(offset);
    this.fail(id, e.code, e.message);
  }

  private tooLong(s: SkippedLine): void {
    this.fail(
      edgeId(s),
      -32600,
      `a message of ${s.bytes} bytes was not read: the limit is ${this.max} bytes ` +
        `("line_mib" in config/limits.json); pass large data as a file in the world`,
    );
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return Promise.resolve();
    const bytes = this.encoder.encode(JSON.stringify(message) + "\n");
    if (this.queued > 0 && this.queued + bytes.length > this.maxQueue) {
      this.overflow(this.queued + bytes.length);
      this.close();
      return Promise.resolve();
    }
    this.queued += bytes.length;
    this.writing = this.writing.then(async () => {
      for (let at = 0; at < bytes.length;) at += await this.output.write(bytes.subarray(at));
      this.queued -= bytes.length;
    }).catch((e) => {
      this.onerror?.(e instanceof Error ? e : new Error(String(e)));
      this.close();
    });
    return this.writing;
  }

  close(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      this.onclose?.();
    }
    return Promise.resolve();
  }
}
