/**
 * Sandboxes: long-lived Deno subprocesses with narrow permissions, each
 * running one process at a time as a fresh instance. A sandbox is the kill
 * switch: a process stuck in a loop is ended by SIGKILL of its sandbox, which
 * stalls nothing else. The pool keeps pre-started spares so a call does not
 * wait for a subprocess to start.
 *
 * @module
 */

import type { FromSandbox, ToSandbox } from "../sandbox/protocol.ts";

const encoder = new TextEncoder();

/** How to start a sandbox subprocess. */
export interface SandboxOptions {
  /** The world folder: the only folder a sandbox may write. */
  world: string;
  /** The cache folder with transpiled components (read-only for sandboxes). */
  cache: string;
  /**
   * More host folders that sandboxes may read and write: the ones a command
   * preopens beside `/` (the test runner's package folder). None by default.
   */
  folders?: string[];
}

/** True inside a binary made by `deno compile`: its modules live in a virtual folder. */
const COMPILED = import.meta.url.includes("/deno-compile-");

/**
 * The command line of a sandbox: `deno run` of `sandbox/main.ts` with
 * narrow permissions, or, in a compiled binary (whose permissions are fixed
 * at compile time), the binary itself with the hidden `__sandbox` command.
 */
function sandboxArgs(opts: SandboxOptions): string[] {
  if (COMPILED) return ["__sandbox"];
  return [
    "run",
    "--quiet",
    `--config=${new URL("../deno.json", import.meta.url).pathname}`,
    "--no-prompt",
    `--allow-read=${[opts.world, opts.cache, ...opts.folders ?? []].join(",")}`,
    `--allow-write=${[opts.world, ...opts.folders ?? []].join(",")}`,
    "--allow-net",
    "--allow-env=JCO_DEBUG",
    new URL("../sandbox/main.ts", import.meta.url).pathname,
  ];
}

/** One sandbox subprocess. */
export class Sandbox {
  /** Receives every message of the sandbox. */
  onMessage: (msg: FromSandbox) => void = () => {};
  /** Resolves when the sandbox has started and can run a process. */
  readonly ready: Promise<void>;
  /** Resolves when the subprocess has exited. */
  readonly exited: Promise<void>;
  private child: Deno.ChildProcess;
  private writer: WritableStreamDefaultWriter<Uint8Array>;
  private dead = false;

  /** Starts the subprocess. */
  constructor(opts: SandboxOptions) {
    this.child = new Deno.Command(Deno.execPath(), {
      args: sandboxArgs(opts),
      stdin: "piped",
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    this.writer = this.child.stdin.getWriter();
    let started: () => void;
    this.ready = new Promise((r) => (started = r));
    this.exited = this.child.status.then(() => {
      this.dead = true;
    });
    this.read(() => started());
  }

  private async read(started: () => void): Promise<void> {
    let buffer = "";
    try {
      for await (const chunk of this.child.stdout.pipeThrough(new TextDecoderStream())) {
        buffer += chunk;
        let nl: number;
        while ((nl = buffer.indexOf("\n")) >= 0) {
          const line = buffer.slice(0, nl);
          buffer = buffer.slice(nl + 1);
          const msg = JSON.parse(line) as FromSandbox;
          if (msg.op === "ready") started();
          else this.onMessage(msg);
        }
      }
    } catch { /* killed */ }
  }

  /** True once the subprocess has exited or was killed. */
  get isDead(): boolean {
    return this.dead;
  }

  /** Sends a message; lost silently if the sandbox has died. */
  send(msg: ToSandbox): void {
    if (this.dead) return;
    this.writer.write(encoder.encode(JSON.stringify(msg) + "\n")).catch(() => {});
  }

  /** SIGKILLs the subprocess. */
  kill(): void {
    if (this.dead) return;
    this.dead = true;
    try {
      this.child.kill("SIGKILL");
    } catch { /* already gone */ }
  }
}

/** How long an idle sandbox beyond the spares is kept before it is stopped. */
const IDLE_MS = 30_000;

/**
 * A pool of idle sandboxes with pre-started spares. The pool grows to the
 * number of processes that run at once; sandboxes beyond the spares that stay
 * idle for `IDLE_MS` are stopped, so a burst does not leave subprocesses
 * behind and a steady load does not churn them.
 */
export class SandboxPool {
  private idle: { sb: Sandbox; since: number }[] = [];
  private starting = 0;
  private closed = false;
  private reaper: ReturnType<typeof setInterval> | undefined;

  /**
   * @param opts how to start sandboxes
   * @param spares how many idle sandboxes to keep ready at least
   */
  constructor(private opts: SandboxOptions, private spares = 2) {}

  /** Starts the spares. */
  warm(): Promise<void> {
    const all: Promise<void>[] = [];
    while (this.idle.length + this.starting < this.spares) all.push(this.startSpare());
    return Promise.all(all).then(() => {});
  }

  private async startSpare(): Promise<void> {
    this.starting++;
    const sb = new Sandbox(this.opts);
    await Promise.race([sb.ready, sb.exited]);
    this.starting--;
    if (this.closed || sb.isDead) sb.kill();
    else this.park(sb);
  }

  private park(sb: Sandbox): void {
    this.idle.push({ sb, since: Date.now() });
    if (this.reaper === undefined && this.idle.length > this.spares) {
      this.reaper = setInterval(() => this.reap(), IDLE_MS / 3);
      Deno.unrefTimer(this.reaper);
    }
  }

  private reap(): void {
    const old = Date.now() - IDLE_MS;
    while (this.idle.length > this.spares && this.idle[0].since < old) this.idle.shift()!.sb.kill();
    if (this.idle.length <= this.spares) {
      clearInterval(this.reaper);
      this.reaper = undefined;
    }
  }

  /** An idle sandbox, started now if none is idle. Tops the spares up in the background. */
  async acquire(): Promise<Sandbox> {
    if (this.closed) throw new Error("the host is shutting down");
    let sb = this.idle.pop()?.sb;
    while (sb && sb.isDead) sb = this.idle.pop()?.sb;
    if (!sb) {
      sb = new Sandbox(this.opts);
      await Promise.race([sb.ready, sb.exited]);
      if (sb.isDead) throw new Error("a sandbox failed to start (see the host's stderr)");
    }
    if (this.idle.length + this.starting < this.spares) this.startSpare();
    return sb;
  }

  /** Gives back a sandbox whose process has ended. */
  release(sb: Sandbox): void {
    sb.onMessage = () => {};
    if (this.closed || sb.isDead) sb.kill();
    else this.park(sb);
  }

  /** Kills every idle sandbox and refuses new work. */
  close(): void {
    this.closed = true;
    clearInterval(this.reaper);
    for (const { sb } of this.idle) sb.kill();
    this.idle = [];
  }
}
