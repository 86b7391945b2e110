/**
 * A real terminal for tests: a command in a tmux pane (its own tmux server,
 * on a socket in a temporary folder), driven with `send-keys` and read with
 * `capture-pane`, the way a person types and reads.
 *
 * @module
 */

/** Options of a terminal. */
export interface TerminalOptions {
  /** Columns (default 120). */
  width?: number;
  /** Rows (default 40). */
  height?: number;
  /** Extra environment of the command. */
  env?: Record<string, string>;
  /** Folder to run in. */
  cwd?: string;
}

/** A tmux pane that runs one shell command. */
export class Terminal {
  /** @param dir a private folder that holds the tmux server's socket */
  private constructor(private dir: string) {}

  /**
   * Runs `command` (a shell command line) in a new pane. When it ends, the
   * pane shows `[exit N]` and stays two minutes, so that its last output can
   * be read.
   */
  static async start(command: string, opts: TerminalOptions = {}): Promise<Terminal> {
    const t = new Terminal(await Deno.makeTempDir({ prefix: "sausage-tmux-" }));
    const env = Object.entries(opts.env ?? {}).flatMap(([k, v]) => ["-e", `${k}=${v}`]);
    await t.tmux(
      "new-session",
      "-d",
      "-x",
      String(opts.width ?? 120),
      "-y",
      String(opts.height ?? 40),
      ...(opts.cwd ? ["-c", opts.cwd] : []),
      ...env,
      `${command}; echo "[exit $?]"; sleep 120`,
    );
    return t;
  }

  private async tmux(...args: string[]): Promise<string> {
    let out: Deno.CommandOutput;
    try {
      out = await new Deno.Command("tmux", {
        args: ["-S", `${this.dir}/socket`, "-f", "/dev/null", ...args],
        // Its own folder, never the process's: another test thread of this process may be
        // inside a folder it is about to remove (vfs/confined_dir.ts), and a command started
        // in a removed folder fails as if tmux were missing.
        cwd: this.dir,
        stdout: "piped",
        stderr: "piped",
      }).output();
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound)) throw e;
      throw new Error(
        `tmux could not be started (${e.message}): bash scripts/install-toolchain.sh ` +
          "--with-test-tools installs it (npm test does)",
      );
    }
    if (!out.success) {
      throw new Error(`tmux ${args[0]} failed: ${new TextDecoder().decode(out.stderr)}`);
    }
    return new TextDecoder().decode(out.stdout);
  }

  /** Types text as it is (no key names). */
  async type(text: string): Promise<void> {
    await this.tmux("send-keys", "-t", "0", "-l", text);
  }

  /** Presses keys by tmux's names: `Enter`, `Tab`, `C-c`, `Up`. */
  async press(...keys: string[]): Promise<void> {
    await this.tmux("send-keys", "-t", "0", ...keys);
  }

  /** The screen as text (`colors`: with the escape codes of colours). */
  async screen(colors = false): Promise<string> {
    return await this.tmux("capture-pane", "-p", "-t", "0", ...(colors ? ["-e"] : []));
  }

  /** The screen's lines without the empty ones at the end. */
  async lines(): Promise<string[]> {
    const lines = (await this.screen()).split("\n");
    while (lines.length && lines.at(-1)!.trim() === "") lines.pop();
    return lines;
  }

  /** Waits until `test` holds for the screen; fails with the screen after `ms`. */
  async waitFor(test: RegExp | ((screen: string) => boolean), what: string, ms = 15000) {
    const until = Date.now() + ms;
    const ok = (s: string) => (typeof test === "function" ? test(s) : test.test(s));
    for (;;) {
      const s = await this.screen();
      if (ok(s)) return s;
      if (Date.now() > until) throw new Error(`timed out waiting for ${what}; the screen:\n${s}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Ends the pane and its tmux server, and removes the socket's folder. */
  async close(): Promise<void> {
    await this.tmux("kill-server").catch(() => {});
    await Deno.remove(this.dir, { recursive: true }).catch(() => {});
  }
}
