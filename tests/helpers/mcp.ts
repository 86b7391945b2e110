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

/** `sausage mcp <world> --http 0`, started, with its address and token read from its banner. */
export interface McpHttpSession {
  /**
   * POSTs `body` (written by hand: its numbers stay as typed) with the token
   * and the session's id; resolves with the JSON-RPC messages of the answer
   * (one JSON body, or the `data:` lines of an event stream; none for a 202),
   * parsed with `parseExact`.
   */
  post(body: string | Uint8Array<ArrayBuffer>): Promise<Record<string, unknown>[]>;
  /** Stops the server (SIGTERM) and removes the world. */
  close(): Promise<void>;
}

/**
 * Starts `sausage mcp <world> --http 0` with `launcher`, reads its banner
 * for the address and the token file, and returns a session that posts to it.
 */
export async function mcpHttpSession(
  launcher: string,
  world: string,
  parseExact: (text: string) => unknown,
): Promise<McpHttpSession> {
  const server = new Deno.Command(launcher, {
    args: ["mcp", world, "--http", "0"],
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const reader = server.stderr.pipeThrough(new TextDecoderStream()).getReader();
  const close = async () => {
    server.kill("SIGTERM");
    await server.status;
    await Deno.remove(world, { recursive: true }).catch(() => {});
  };
  let said = "";
  let banner: RegExpExecArray | null = null;
  while (!banner) {
    const { value, done } = await reader.read();
    if (done) {
      await close();
      throw new Error(`no banner: ${said}`);
    }
    said += value;
    banner = /(http:\/\/127\.0\.0\.1:\d+\/mcp).*token is in (\S+)/.exec(said);
  }
  (async () => {
    while (!(await reader.read()).done) { /* drain */ }
  })();
  const [, url, tokenFile] = banner;
  const token = (await Deno.readTextFile(tokenFile)).trim();
  let session: string | null = null;
  const post = async (body: string | Uint8Array<ArrayBuffer>) => {
    const res = await fetch(url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...(session ? { "mcp-session-id": session } : {}),
      },
      body,
    });
    session ??= res.headers.get("mcp-session-id");
    const text = await res.text();
    if (text === "") return []; // 202 to a notification
    if (!(res.headers.get("content-type") ?? "").includes("text/event-stream")) {
      return [parseExact(text) as Record<string, unknown>];
    }
    return text.split("\n").filter((l) => l.startsWith("data:"))
      .map((l) => parseExact(l.slice(5)) as Record<string, unknown>);
  };
  return { post, close };
}
