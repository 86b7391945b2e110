/**
 * A scripted model server on 127.0.0.1 for the agent's tests: a real HTTP
 * server that speaks OpenAI's chat completions or Anthropic's messages API
 * and answers each request with the next step of a script, streamed as
 * server-sent events. It stands in for the model, never for our code.
 *
 * @module
 */

/** A tool call in a scripted reply. */
export interface ScriptedCall {
  name: string;
  args: Record<string, unknown>;
}

/**
 * One reply: pieces of text (a function in the list is awaited between
 * pieces, so a test can hold the rest back), then tool calls.
 */
export interface ScriptedReply {
  text?: (string | (() => Promise<void>))[];
  calls?: ScriptedCall[];
}

/** A request as the server saw it. */
export interface SeenRequest {
  path: string;
  headers: Headers;
  body: Record<string, unknown>;
}

/** One step: looks at the request (and may assert on it), then gives the reply. */
export type Step = (req: SeenRequest) => ScriptedReply | Promise<ScriptedReply>;

/** The API a server speaks. */
export type ScriptedApi = "openai" | "anthropic";

const SSE = { "content-type": "text/event-stream", "cache-control": "no-cache" };

/** A model server that plays `steps` in order; a request past the end gets HTTP 500. */
export class ScriptedModel {
  /** Every request, in order. */
  readonly requests: SeenRequest[] = [];
  /** Failures of steps (assertions), reported by {@link check}. */
  readonly failures: string[] = [];
  private server: Deno.HttpServer<Deno.NetAddr>;
  private next = 0;

  constructor(readonly api: ScriptedApi, private steps: Step[]) {
    this.server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      (r) => this.answer(r),
    );
  }

  /** The base URL for `config/agent.json` (`http://127.0.0.1:<port>/v1`). */
  get baseUrl(): string {
    return `http://127.0.0.1:${this.server.addr.port}/v1`;
  }

  /** The `config/agent.json` for this server, with `extra` fields. */
  config(extra: Record<string, unknown> = {}): string {
    return JSON.stringify({ api: this.api, base_url: this.baseUrl, model: "scripted", ...extra });
  }

  /** Adds steps at the end of the script. */
  add(...steps: Step[]): void {
    this.steps.push(...steps);
  }

  /** Throws when a step failed or steps were left unplayed. */
  check(): void {
    if (this.failures.length) throw new Error(`the scripted model: ${this.failures.join("; ")}`);
    if (this.next < this.steps.length) {
      throw new Error(`the scripted model played ${this.next} of ${this.steps.length} steps`);
    }
  }

  /** Stops the server. */
  async close(): Promise<void> {
    await this.server.shutdown();
  }

  private async answer(r: Request): Promise<Response> {
    const seen: SeenRequest = {
      path: new URL(r.url).pathname,
      headers: r.headers,
      body: await r.json(),
    };
    this.requests.push(seen);
    const step = this.steps[this.next++];
    if (!step) {
      this.failures.push(`request ${this.requests.length} came after the script's end`);
      return new Response("{}", { status: 500 });
    }
    let reply: ScriptedReply;
    try {
      reply = await step(seen);
    } catch (e) {
      this.failures.push(`step ${this.next}: ${(e as Error).message}`);
      return Response.json({ error: { message: `step failed: ${e}` } }, { status: 500 });
    }
    if (seen.body.stream === false) return Response.json(this.whole(reply));
    const events = this.api === "openai" ? openAiEvents(reply) : anthropicEvents(reply);
    const enc = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        for (const e of events) {
          if (typeof e === "function") await e();
          else controller.enqueue(enc.encode(e));
        }
        controller.close();
      },
    });
    return new Response(body, { headers: SSE });
  }

  /** The reply as one JSON answer (for `"stream": false`). */
  private whole(reply: ScriptedReply): unknown {
    const text = (reply.text ?? []).filter((t) => typeof t === "string").join("");
    const calls = reply.calls ?? [];
    if (this.api === "openai") {
      return {
        choices: [{
          index: 0,
          message: {
            role: "assistant",
            content: text || null,
            tool_calls: calls.length
              ? calls.map((c, i) => ({
                id: `call_${i}`,
                type: "function",
                function: { name: c.name, arguments: JSON.stringify(c.args) },
              }))
              : undefined,
          },
          finish_reason: calls.length ? "tool_calls" : "stop",
        }],
      };
    }
    return {
      type: "message",
      role: "assistant",
      content: [
        ...(text ? [{ type: "text", text }] : []),
        ...calls.map((c, i) => ({
          type: "tool_use",
          id: `toolu_${i}`,
          name: c.name,
          input: c.args,
        })),
      ],
      stop_reason: calls.length ? "tool_use" : "end_turn",
    };
  }
}

type Piece = string | (() => Promise<void>);

/** Splits a tool call's arguments in two, as servers stream them. */
function halves(args: Record<string, unknown>): [string, string] {
  const json = JSON.stringify(args);
  const mid = Math.floor(json.length / 2);
  return [json.slice(0, mid), json.slice(mid)];
}

function openAiEvents(reply: ScriptedReply): Piece[] {
  const chunk = (delta: unknown, finish: string | null = null) =>
    `data: ${
      JSON.stringify({
        id: "chatcmpl-scripted",
        object: "chat.completion.chunk",
        choices: [{ index: 0, delta, finish_reason: finish }],
      })
    }\n\n`;
  const out: Piece[] = [chunk({ role: "assistant", content: "" })];
  for (const t of reply.text ?? []) out.push(typeof t === "string" ? chunk({ content: t }) : t);
  (reply.calls ?? []).forEach((c, index) => {
    const [a, b] = halves(c.args);
    out.push(chunk({
      tool_calls: [{
        index,
        id: `call_${index}`,
        type: "function",
        function: { name: c.name, arguments: a },
      }],
    }));
    out.push(chunk({ tool_calls: [{ index, function: { arguments: b } }] }));
  });
  out.push(chunk({}, reply.calls?.length ? "tool_calls" : "stop"), "data: [DONE]\n\n");
  return out;
}

function anthropicEvents(reply: ScriptedReply): Piece[] {
  const ev = (type: string, data: Record<string, unknown>) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  const out: Piece[] = [
    ev("message_start", {
      message: { id: "msg_scripted", type: "message", role: "assistant", content: [] },
    }),
    ": a comment, as proxies send\n\n",
  ];
  let index = 0;
  if (reply.text?.length) {
    out.push(ev("content_block_start", { index, content_block: { type: "text", text: "" } }));
    out.push(ev("ping", {}));
    for (const t of reply.text) {
      out.push(
        typeof t === "string"
          ? ev("content_block_delta", { index, delta: { type: "text_delta", text: t } })
          : t,
      );
    }
    out.push(ev("content_block_stop", { index }));
    index++;
  }
  for (const c of reply.calls ?? []) {
    out.push(ev("content_block_start", {
      index,
      content_block: { type: "tool_use", id: `toolu_${index}`, name: c.name, input: {} },
    }));
    for (const part of halves(c.args)) {
      out.push(ev("content_block_delta", {
        index,
        delta: { type: "input_json_delta", partial_json: part },
      }));
    }
    out.push(ev("content_block_stop", { index }));
    index++;
  }
  out.push(
    ev("message_delta", { delta: { stop_reason: reply.calls?.length ? "tool_use" : "end_turn" } }),
    ev("message_stop", {}),
  );
  return out;
}

/**
 * The tool results that a request carries after the model's last reply, in
 * order (the text of each; for Anthropic also whether it is an error).
 */
export function toolResults(req: SeenRequest): { text: string; isError?: boolean }[] {
  const messages = req.body.messages as Record<string, unknown>[];
  if (req.path.endsWith("/chat/completions")) {
    const out: { text: string }[] = [];
    for (let i = messages.length - 1; i >= 0 && messages[i].role === "tool"; i--) {
      out.unshift({ text: String(messages[i].content) });
    }
    return out;
  }
  const last = messages[messages.length - 1];
  if (last?.role !== "user" || !Array.isArray(last.content)) return [];
  return (last.content as Record<string, unknown>[])
    .filter((b) => b.type === "tool_result")
    .map((b) => ({ text: String(b.content), isError: b.is_error as boolean }));
}
