/**
 * The console of `sausage run` on a terminal (section 15): reads a line,
 * does what it says, prints the outcome indented below it, and again until
 * `quit` or Ctrl-D. Nothing typed ends the console or the host except those:
 * every mistake is one line that says what to do.
 *
 * @module
 */

import { ErrorCode } from "../../rpc/errors.ts";
import type { OpenRpcDocument } from "../../rpc/openrpc.ts";
import { noDocumentNote } from "../no_document_note.ts";
import { closest } from "./closest.ts";
import { complete, type CompletionSource } from "./completer.ts";
import type { CallOutcome, ConsoleHost } from "./console_host.ts";
import { History, HISTORY_LIMIT } from "./history.ts";
import { helpText } from "./help.ts";
import { COMMAND_NAMES, type EventFilter, type Input, parseInput } from "./input.ts";
import { PeopleLines } from "../log_lines.ts";
import { listText, processTable, readText, whoFilter, worldPath } from "./inspect.ts";
import { JournalFollower } from "./journal_follower.ts";
import { LineEditor } from "./line_editor.ts";
import { methodNames, methodsText } from "./methods_text.ts";
import { indent, renderError, renderNotification, renderResult, textOf } from "./render.ts";
import type { Style } from "./style.ts";

/** The prompt. */
export const PROMPT = "> ";
/** The plugin that free text goes to, and its method. */
export const AGENT = { plugin: "agent", method: "agent.chat" };
/** How long completion waits for a plugin's document. */
const DISCOVER_WAIT_MS = 3000;

/** How a call typed here ended; `refused` when it was not made (no such plugin). */
type Outcome = CallOutcome | { refused: string };

/** The console of one running host. */
export class Console {
  private editor: LineEditor;
  private history: History;
  private follower?: JournalFollower;
  private background = 0;
  private closed = false;

  /**
   * @param host the running host
   * @param style colours
   */
  constructor(private host: ConsoleHost, private style: Style) {
    this.history = new History(host.root);
    const source: CompletionSource = {
      plugins: () => host.plugins(),
      methods: (plugin) => this.methodsOf(plugin),
      pids: () => host.processes().map((p) => p.pid),
      list: async (path) =>
        ((await host.list(path)).entries ?? []).map((e) =>
          e.type === "directory" ? `${e.name}/` : e.name
        ),
    };
    this.editor = new LineEditor({
      prompt: style.bold(PROMPT),
      history: this.history.entries(),
      historySize: HISTORY_LIMIT,
      complete: (before) => complete(before, source),
      style,
    });
  }

  /** Prints a line of the host (a boot result, a warning) above the prompt, dimmed. */
  notice(line: string): void {
    if (!this.closed) this.editor.print(this.style.dim(line));
  }

  /** Reads and runs inputs until `quit`, Ctrl-D or `close`. */
  async run(): Promise<void> {
    this.editor.print(this.style.dim(`sausage console: help lists the commands, quit leaves`));
    while (!this.closed) {
      const line = await this.editor.read();
      if (line === null || this.closed) break;
      const saved = this.history.add(line.trim());
      if (saved) this.say(this.style.red(saved));
      let input: Input;
      try {
        input = parseInput(line);
      } catch (e) {
        input = { kind: "error", message: String(e) };
      }
      if (input.kind === "quit") break;
      try {
        await this.execute(input);
      } catch (e) {
        this.say(this.style.red(`error: ${e instanceof Error ? e.message : e}`));
      }
    }
    this.close();
  }

  /** Ends the console (the host is stopping) and gives the terminal back. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.follower?.stop();
    this.editor.close();
  }

  private say(text: string): void {
    this.editor.print(indent(text));
  }

  private fail(message: string): void {
    this.say(this.style.red(message));
  }

  private async execute(input: Input): Promise<void> {
    switch (input.kind) {
      case "empty":
        return;
      case "error":
        return this.mistake(input.message, input.column);
      case "call":
        return input.background
          ? this.callInBackground(input.method, input.params)
          : await this.call(input.method, input.params);
      case "chat":
        return await this.chat(input.text);
      case "word":
        return await this.word(input.word);
      case "help":
        return this.say(helpText(this.style));
      case "clear":
        return this.editor.clearScreen();
      case "ls":
        return await this.ls(input.path);
      case "cat":
        return await this.cat(input.path);
      case "methods":
        return await this.methods(input.plugin);
      case "ps":
        return this.ps();
      case "log":
        return this.log(input.who, input.limit, input.filter);
      case "follow":
        return this.follow(input.who, input.filter);
      case "unfollow":
        this.follower?.stop();
        this.follower = undefined;
        return this.say(this.style.dim("stopped following the journal"));
      case "activate":
        return await this.core(
          "core.activate",
          { plugin: input.plugin, wasm: worldPath(input.wasm) },
          (result) =>
            `${input.plugin} activated: new calls run the new version` +
            noDocumentNote(result, input.plugin),
        );
      case "revert":
        return await this.core(
          "core.revert",
          { plugin: input.plugin },
          () => `${input.plugin} reverted to its previous version`,
        );
      case "stop":
        return await this.core("core.stop", { pid: input.pid }, () => `${input.pid} stopped`);
      case "kill":
        return await this.core("core.kill", { pid: input.pid }, () => `${input.pid} killed`);
      case "quit":
        return;
    }
  }

  /** A one-line mistake; with a column, a caret points at it below the input. */
  private mistake(message: string, column?: number): void {
    const at = PROMPT.length + (column ?? 0) - 1;
    const width = Deno.consoleSize?.().columns ?? 80;
    if (column !== undefined && at + message.length + 2 < width) {
      this.editor.print(this.style.red(`${" ".repeat(at)}^ ${message}`));
    } else this.fail(message);
  }

  /** Runs a call in the foreground (spinner, Ctrl-C cancels) and prints its outcome. */
  private async call(method: string, params: Record<string, unknown>): Promise<void> {
    const outcome = await this.run1(
      method,
      params,
      (name, p) => this.editor.print(renderNotification(name, p, this.style)),
    );
    await this.printOutcome(method, outcome);
  }

  private async run1(
    method: string,
    params: Record<string, unknown>,
    notify: (name: string, params: unknown) => void,
  ): Promise<Outcome> {
    const missing = this.missingPlugin(method.slice(0, method.indexOf(".")));
    if (missing) return { refused: missing };
    const handle = this.host.call(method, params, notify);
    return await this.editor.busy(method, handle.outcome, () => handle.cancel());
  }

  private async printOutcome(method: string, outcome: Outcome): Promise<void> {
    if ("refused" in outcome) return this.fail(outcome.refused);
    if ("cancelled" in outcome) return this.fail("cancelled: the call's processes were killed");
    if ("result" in outcome) return this.editor.print(renderResult(outcome.result));
    if (outcome.error.code === ErrorCode.MethodNotFound && !method.startsWith("core.")) {
      return this.fail(await this.unknownMethod(method));
    }
    this.editor.print(renderError(outcome.error, this.style));
  }

  /** `notes has no method "ad"; did you mean notes.add? (methods: add, list)`. */
  private async unknownMethod(method: string): Promise<string> {
    const dot = method.indexOf(".");
    const [plugin, name] = [method.slice(0, dot), method.slice(dot + 1)];
    const names = await this.methodsOf(plugin);
    const near = closest(name, names);
    return `${plugin} has no method "${name}"` +
      (near ? `; did you mean ${plugin}.${near}?` : "") +
      (names.length ? ` (methods: ${names.join(", ")})` : "");
  }

  /** Runs a call beside the prompt: its notifications and outcome appear above it, tagged. */
  private callInBackground(method: string, params: Record<string, unknown>): void {
    const missing = this.missingPlugin(method.slice(0, method.indexOf(".")));
    if (missing) return this.fail(missing);
    const tag = `[${++this.background}] `;
    // Detached (PROTOCOL 4.4): its process is the core's child, and outlives what it was
    // typed beside; its answer still comes here.
    this.say(this.style.dim(`${tag}${method} runs detached (ps shows it; stop <pid> ends it)`));
    const handle = this.host.call("core.call", { method, params, detach: true }, (name, p) => {
      if (!this.closed) this.editor.print(renderNotification(name, p, this.style, tag));
    });
    handle.outcome.then((o: Outcome) => {
      if (this.closed || !("result" in o || "error" in o)) return;
      const body = "result" in o ? renderResult(o.result) : renderError(o.error, this.style);
      this.editor.print(`${indent(`${tag}${method} ->`)}\n${indent(body)}`);
    });
  }

  /** Free text: `agent.chat`, its interim texts streamed, its answer as text. */
  private async chat(text: string): Promise<void> {
    if (!this.host.plugins().includes(AGENT.plugin)) {
      const first = text.split(/\s+/)[0];
      const near = closest(first, COMMAND_NAMES, 1); // one slip: "mehtods notes"
      if (near) return this.fail(`unknown command "${first}"; did you mean ${near}?`);
      const example = this.host.plugins()[0];
      return this.fail(
        `no agent in this world (plugins/agent/ with a chat method); call plugins directly` +
          `${example ? `, like ${example}.<Tab>` : ""}, or type help`,
      );
    }
    // The model's text of its last turn, as streamed (a tool call starts a new turn).
    let streamed = "";
    const outcome = await this.run1(
      AGENT.method,
      { text },
      (name, p) => {
        streamed = name === "text" ? streamed + (textOf(p) ?? "") + "\n" : "";
        this.editor.print(renderNotification(name, p, this.style));
      },
    );
    const answer = "result" in outcome ? textOf(outcome.result) : undefined;
    // The answer is printed once: not again when its lines were the last ones streamed.
    const words = (t: string) => t.split(/\s+/).filter(Boolean).join(" ");
    if (answer !== undefined && words(answer) && words(streamed).endsWith(words(answer))) return;
    if (answer !== undefined) return this.say(answer);
    await this.printOutcome(AGENT.method, outcome);
  }

  /** A lone word: a plugin's name, a mistyped command, or a message to the agent. */
  private async word(word: string): Promise<void> {
    if (this.host.plugins().includes(word)) {
      const names = await this.methodsOf(word);
      return this.fail(
        `${word} is a plugin: call a method, like ${word}.${names[0] ?? "<method>"} {...} ` +
          `(methods ${word} lists them)`,
      );
    }
    const near = closest(word, COMMAND_NAMES, 2);
    if (near || !this.host.plugins().includes(AGENT.plugin)) {
      return this.fail(
        `unknown command "${word}"${
          near ? `; did you mean ${near}?` : ""
        } (help lists the commands)`,
      );
    }
    await this.chat(word);
  }

  private async ls(path: string): Promise<void> {
    try {
      this.say(await listText(this.host, path, Deno.consoleSize?.().columns ?? 80));
    } catch (e) {
      this.fail((e as Error).message);
    }
  }

  private async cat(path: string): Promise<void> {
    try {
      this.say(await readText(this.host, path));
    } catch (e) {
      this.fail((e as Error).message);
    }
  }

  private async methods(plugin: string): Promise<void> {
    const missing = this.missingPlugin(plugin);
    if (missing) return this.fail(missing);
    let doc: OpenRpcDocument;
    let cancel = () => {};
    const cancelled = new Promise<never>((_, reject) =>
      cancel = () => reject(new Error("cancelled"))
    );
    try {
      doc = await this.editor.busy(
        `${plugin}.rpc.discover`,
        Promise.race([this.host.discover(plugin), cancelled]),
        cancel,
      );
    } catch (e) {
      return this.fail(`${plugin} has no document: ${e instanceof Error ? e.message : e}`);
    }
    this.say(methodsText(plugin, doc).join("\n"));
  }

  private ps(): void {
    this.say(processTable(this.host.processes()) ?? this.style.dim("no process runs"));
  }

  private log(who: string | undefined, limit: number, filter: EventFilter = {}): void {
    const entries = this.host.journal({ ...whoFilter(who), ...filter, limit });
    if (entries.length === 0) return this.say(this.style.dim("no entries"));
    // As `sausage log` prints them: a line per finished call, `<time> <pid> <line>` for output.
    const lines = new PeopleLines();
    const text = entries.flatMap((e) => lines.line(e) ?? []);
    this.say([...text, ...lines.running()].join("\n"));
  }

  private follow(who: string | undefined, filter: EventFilter = {}): void {
    this.follower?.stop();
    const lines = new PeopleLines();
    this.follower = new JournalFollower(
      (f) => this.host.journal(f),
      { ...whoFilter(who), ...filter },
      (e) => {
        const line = lines.line(e);
        if (line !== null) this.notice(line);
      },
    );
    this.say(this.style.dim(`following the journal${who ? ` of ${who}` : ""} (log -f off stops)`));
  }

  /** A core method whose success is a sentence and whose failure is its message. */
  private async core(
    method: string,
    params: Record<string, unknown>,
    done: (result: unknown) => string,
  ): Promise<void> {
    const outcome = await this.run1(method, params, () => {});
    if ("result" in outcome) return this.say(done(outcome.result));
    if ("cancelled" in outcome) return this.fail("cancelled");
    if ("refused" in outcome) return this.fail(outcome.refused);
    const [first, ...rest] = outcome.error.message.split("\n");
    this.say([this.style.red(first), ...rest].join("\n"));
  }

  /** Why `plugin` cannot be called (it is not in the world, with the closest name), or null. */
  private missingPlugin(plugin: string): string | null {
    const plugins = this.host.plugins();
    if (plugin === "core" || plugins.includes(plugin)) return null;
    const near = closest(plugin, plugins);
    return `no plugin "${plugin}" in this world${near ? `; did you mean ${near}?` : ""} ` +
      `(plugins: ${plugins.join(", ") || "none"})`;
  }

  /** The method names of a plugin (for completion and hints); [] when it has no document. */
  private async methodsOf(plugin: string): Promise<string[]> {
    if (plugin === "core") return this.host.coreMethods();
    if (!this.host.plugins().includes(plugin)) return [];
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const timeout = new Promise<null>((
        r,
      ) => (timer = setTimeout(() => r(null), DISCOVER_WAIT_MS)));
      return methodNames(await Promise.race([this.host.discover(plugin), timeout]));
    } catch {
      return [];
    } finally {
      clearTimeout(timer);
    }
  }
}
