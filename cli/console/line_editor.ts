/**
 * The terminal side of the console, over Node's `readline` (built into Deno
 * as `node:readline`): line editing, history, Tab completion and the prompt.
 * Keys are read here and handed to readline, so that the console decides
 * first: Ctrl-C clears the line (or cancels the running call), Ctrl-L clears
 * the screen, Ctrl-Z says why it does not suspend, Ctrl-D on an
 * empty line leaves, Ctrl-R searches the history, and keys typed while a call
 * runs wait for the next prompt. Lines printed while the person types appear
 * above the prompt, and the line being edited is drawn again below them.
 *
 * @module
 */

import * as readline from "node:readline";
import process from "node:process";
import { PassThrough } from "node:stream";
import { ReverseSearch } from "./reverse_search.ts";
import { SPINNER_AFTER_MS, SPINNER_EVERY_MS, spinnerLine } from "./spinner.ts";
import type { Style } from "./style.ts";

/** A key as `readline.emitKeypressEvents` reports it. */
interface Key {
  name?: string;
  sequence?: string;
  ctrl?: boolean;
  meta?: boolean;
  shift?: boolean;
}

/**
 * The line being edited and the cursor, which readline's Interface has and
 * its typings mark read-only; the editor sets them (and redraws) to replace
 * the line.
 */
interface Editable {
  line: string;
  cursor: number;
}

/** readline's history, newest first: the Interface keeps it, its typings do not show it. */
function historyOf(rl: readline.Interface): string[] {
  if (!("history" in rl) || !Array.isArray(rl.history)) return [];
  return rl.history.filter((h): h is string => typeof h === "string");
}

/** A call that runs in the foreground, and its spinner. */
interface BusyState {
  label: string;
  start: number;
  /** True once the spinner line is on the screen. */
  shown: boolean;
  timer?: ReturnType<typeof setInterval>;
  cancel: () => void;
}

/** Options of a line editor. */
export interface LineEditorOptions {
  /** The prompt, e.g. `> `. */
  prompt: string;
  /** Earlier inputs, oldest first (Up goes back through them). */
  history: readonly string[];
  /** How many inputs Up can reach. */
  historySize: number;
  /** The completions of the text before the cursor, and the part of it they replace. */
  complete(before: string): Promise<[string[], string]>;
  /** Colours. */
  style: Style;
}

/** Reads lines from the terminal and prints around the prompt. */
export class LineEditor {
  private rl: readline.Interface;
  private mode: "idle" | "prompt" | "busy" = "idle";
  private resolveLine?: (line: string | null) => void;
  private typeahead: [string | undefined, Key][] = [];
  private search?: { state: ReverseSearch; before: string };
  private busyState?: BusyState;
  private out = process.stdout;
  private hinted = false;
  private onKeypress = (s: string | undefined, key: Key | undefined) => {
    try {
      this.key(s, key ?? { sequence: s });
    } catch (e) {
      // A key must never end the console; say what went wrong and go on.
      this.print(this.opts.style.red(`key ${JSON.stringify(s)} failed: ${e}`));
    }
  };

  /** The terminal went away: like Ctrl-D. */
  private onEnd = () => {
    this.ended = true;
    if (this.mode === "prompt") this.mode = "idle";
    this.resolveLine?.(null);
  };
  private ended = false;

  constructor(private opts: LineEditorOptions) {
    this.rl = readline.createInterface({
      input: new PassThrough(), // keys come from `key`, not from a stream
      output: this.out,
      terminal: true,
      prompt: opts.prompt,
      history: [...opts.history].reverse(),
      historySize: opts.historySize,
      completer: (line: string, done: (e: Error | null, r: [string[], string]) => void) => {
        opts.complete(line).then((r) => done(null, r), () => done(null, [[], line]));
      },
    });
    this.rl.on("line", (line: string) => this.entered(line));
    readline.emitKeypressEvents(process.stdin);
    process.stdin.setRawMode(true);
    process.stdin.on("keypress", this.onKeypress);
    process.stdin.on("end", this.onEnd);
    process.stdin.resume();
  }

  /** Shows the prompt and resolves with the line typed, or null for Ctrl-D on an empty line. */
  read(): Promise<string | null> {
    if (this.ended) return Promise.resolve(null);
    this.mode = "prompt";
    this.rl.setPrompt(this.opts.prompt);
    this.rl.prompt();
    const line = new Promise<string | null>((r) => (this.resolveLine = r));
    for (const [s, key] of this.typeahead.splice(0)) {
      if (this.mode !== "prompt") {
        this.typeahead.push([s, key]);
        continue;
      }
      this.key(s, key);
    }
    return line;
  }

  /** Prints lines: above the prompt or the spinner when one is shown, else where the output is. */
  print(text: string): void {
    const body = text.endsWith("\n") ? text : `${text}\n`;
    if (this.mode === "prompt") {
      const rows = this.rl.getCursorPos().rows;
      readline.moveCursor(this.out, 0, -rows);
      readline.cursorTo(this.out, 0);
      readline.clearScreenDown(this.out);
      this.out.write(body);
      // readline redraws from where it last left the cursor (`rows` below
      // the start of the prompt): make room for that, so that it lands here.
      if (rows > 0) this.out.write("\n".repeat(rows));
      this.rl.prompt(true);
    } else if (this.busyState?.shown) {
      readline.cursorTo(this.out, 0);
      readline.clearLine(this.out, 0);
      this.out.write(body);
      this.drawSpinner();
    } else this.out.write(body);
  }

  /**
   * Marks a call as running until `done` settles: keys wait for the next
   * prompt, Ctrl-C calls `cancel`, and after a second a spinner shows the
   * elapsed time.
   */
  async busy<T>(label: string, done: Promise<T>, cancel: () => void): Promise<T> {
    this.mode = "busy";
    const state: BusyState = this.busyState = { label, start: Date.now(), shown: false, cancel };
    state.timer = setInterval(() => {
      if (Date.now() - state.start < SPINNER_AFTER_MS) return;
      state.shown = true;
      this.drawSpinner();
    }, SPINNER_EVERY_MS);
    try {
      return await done;
    } finally {
      clearInterval(state.timer);
      if (state.shown) {
        readline.cursorTo(this.out, 0);
        readline.clearLine(this.out, 0);
      }
      this.busyState = undefined;
      this.mode = "idle";
    }
  }

  /** Gives the terminal back (cooked mode, no key handling); a pending `read` resolves with null. */
  close(): void {
    if (this.mode === "prompt") this.out.write("\n");
    this.mode = "idle";
    this.resolveLine?.(null);
    process.stdin.off("keypress", this.onKeypress);
    process.stdin.off("end", this.onEnd);
    try {
      process.stdin.setRawMode(false);
    } catch { /* not a terminal any more */ }
    process.stdin.pause();
    this.rl.close();
  }

  private drawSpinner(): void {
    const b = this.busyState;
    if (!b) return;
    const width = Math.max(10, (this.out.columns ?? 80) - 1);
    readline.cursorTo(this.out, 0);
    readline.clearLine(this.out, 0);
    this.out.write(this.opts.style.dim(spinnerLine(b.label, Date.now() - b.start).slice(0, width)));
  }

  private entered(line: string): void {
    if (this.mode !== "prompt") return;
    this.mode = "idle";
    this.resolveLine?.(line);
  }

  /** The Interface's line and cursor, writable (its typings mark them read-only). */
  private get editable(): Editable {
    return this.rl;
  }

  /** Clears the screen (Ctrl-L, `clear`); the prompt and the line being typed are drawn again. */
  clearScreen(): void {
    this.out.write("\x1b[H\x1b[2J\x1b[3J");
    if (this.mode === "prompt") this.rl.prompt(true);
  }

  private key(s: string | undefined, key: Key): void {
    const ctrl = (name: string) => key.ctrl === true && key.name === name;
    if (ctrl("z")) {
      // readline would stop this process (SIGTSTP): the world and its servers would freeze.
      this.print(this.opts.style.dim(
        "(Ctrl-Z would freeze the world and every server in it: quit leaves; " +
          "to keep it running without a terminal, sausage run <world> --headless &)",
      ));
      return;
    }
    if (ctrl("l") && this.mode !== "idle") return this.clearScreen();
    if (this.mode === "busy") {
      if (ctrl("c")) this.busyState?.cancel();
      else if (!ctrl("d")) this.typeahead.push([s, key]);
      return;
    }
    if (this.mode === "idle") {
      this.typeahead.push([s, key]);
      return;
    }
    if (this.search) return this.searchKey(s, key);
    if (ctrl("c")) {
      if (this.editable.line === "") {
        if (!this.hinted) this.print(this.opts.style.dim("(to leave, type quit or press Ctrl-D)"));
        this.hinted = true;
        return;
      }
      this.replaceLine("", 0);
      return;
    }
    if (ctrl("d") && this.editable.line === "") {
      this.mode = "idle";
      this.out.write("\n");
      this.resolveLine?.(null);
      return;
    }
    if (ctrl("r")) {
      const history = historyOf(this.rl);
      this.search = { state: new ReverseSearch(history), before: this.editable.line };
      this.showSearch();
      return;
    }
    this.rl.write(s ?? "", key);
  }

  private searchKey(s: string | undefined, key: Key): void {
    const search = this.search!;
    const state = search.state;
    if (key.ctrl && key.name === "r") state.older();
    else if (key.name === "backspace") state.backspace();
    else if ((key.ctrl && (key.name === "c" || key.name === "g")) || key.name === "escape") {
      this.search = undefined;
      this.rl.setPrompt(this.opts.prompt);
      this.replaceLine(search.before, search.before.length);
      return;
    } else if (s && !key.ctrl && !key.meta && s >= " " && key.name !== "return") state.type(s);
    else {
      // Any other key takes the match into the line, then acts as usual.
      this.search = undefined;
      const line = state.match() ?? search.before;
      this.rl.setPrompt(this.opts.prompt);
      this.replaceLine(line, state.match() ? state.at() : line.length);
      this.key(s, key);
      return;
    }
    this.showSearch();
  }

  private showSearch(): void {
    const state = this.search!.state;
    const found = state.match();
    const label = found === undefined && state.query ? "failing search" : "search";
    this.rl.setPrompt(this.opts.style.dim(`(${label} '${state.query}') `));
    this.replaceLine(found ?? "", found ? state.at() : 0);
  }

  private replaceLine(line: string, cursor: number): void {
    this.editable.line = line;
    this.editable.cursor = cursor;
    this.rl.prompt(true);
  }
}
