/**
 * MCP messages the tests send by hand, and a raw stdio session with `sausage mcp`.
 *
 * @module
 */

import { streamLines } from "../../rpc/line_splitter.ts";

/** An MCP `initialize` request with id `id`. */
export function mcpInitialize(id: number) {
  return {
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "t", version: "1" },
    },
  };
}

/** A raw stdio session with `sausage mcp <world>`, written to line by line. */
export interface McpStdioSession {
  /** The `sausage mcp` process; its stderr is piped when asked for, else dropped. */
  child: Deno.ChildProcess;
  /** Writes `text` and a newline (a message written by hand keeps its numbers as typed). */
  send(text: string): Promise<void>;
  /** Writes `bytes` as they are (a line's newline included by the caller). */
  sendBytes(bytes: Uint8Array): Promise<void>;
  /** The answer with `id` (notifications and other answers are kept or skipped). */
  answer(id: unknown): Promise<Record<string, unknown>>;
  /** Ends stdin (which ends the session) and resolves with the process's status. */
  close(): Promise<Deno.CommandStatus>;
}

/**
 * Starts `sausage mcp <world>` (the launcher `launcher`) over stdio. Lines are
 * split by the host's own splitter (64 MiB) and parsed with `parse`
 * (`parseExact` to read big integers exactly).
 */
export function mcpStdioSession(
  launcher: string,
  world: string,
  opts: { parse?: (line: string) => unknown; stderr?: "piped" | "null" } = {},
): McpStdioSession {
  const parse = opts.parse ?? JSON.parse;
  const child = new Deno.Command(launcher, {
    args: ["mcp", world],
    stdin: "piped",
    stdout: "piped",
    stderr: opts.stderr ?? "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  const waiting = new Map<unknown, (msg: Record<string, unknown>) => void>();
  const early = new Map<unknown, Record<string, unknown>>();
  (async () => {
    for await (const line of streamLines(child.stdout, 64 * 2 ** 20)) {
      const msg = parse(line) as Record<string, unknown>;
      if (!("id" in msg) || "method" in msg) continue;
      const wait = waiting.get(msg.id);
      if (wait) wait(msg);
      else early.set(msg.id, msg);
    }
  })();
  return {
    child,
    send: (text) => writer.write(new TextEncoder().encode(text + "\n")),
    sendBytes: (bytes) => writer.write(bytes),
    answer: (id) => {
      const got = early.get(id);
      if (got) {
        early.delete(id);
        return Promise.resolve(got);
      }
      return new Promise((r) => waiting.set(id, r));
    },
    close: async () => {
      await writer.close().catch(() => {});
      return await child.status;
    },
  };
}
