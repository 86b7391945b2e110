/**
 * Serving a world: the one place that makes a `Host` for a command and
 * serves it (`sausage run`, `dev`, a `sausage mcp` session's own host, a
 * command's transient host of `world_client.ts`, the test runner's private
 * one), with its control socket, the signals that stop it (to its pid or
 * its group: SIGINT, SIGTERM, SIGHUP; a second one exits at once) and the
 * order it shuts down in: every process stopped (grace, then kill), the
 * control socket closed, the journal flushed, the world's lock released
 * last.
 *
 * Its users in this OS process call it through `WorldClient.of(host, name)`,
 * as any client does.
 *
 * @module
 */

import { Host } from "../host.ts";
import type { HostOptions } from "../host_options.ts";
import { HostLock } from "./host_lock.ts";
import type { TestHost } from "../test_runner/test_runner.ts";

/** The signals that stop a served host: a terminal's Ctrl-C, a service manager's stop, a hang-up. */
export const STOP_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

/** The exit code of a host forced to exit by a second signal: 128 + the signal's number. */
const FORCED_EXIT: Record<(typeof STOP_SIGNALS)[number], number> = {
  SIGHUP: 129,
  SIGINT: 130,
  SIGTERM: 143,
};

/** How a world is served. */
export interface ServeOptions extends HostOptions {
  /** Whether the control socket is served (default true; the test runner's private world has none). */
  socket?: boolean;
}

/** A host made and served by this OS process. */
export class WorldServer {
  private signalsOn = false;
  /** The stop signals that came, once the first one did. */
  private signalled = 0;
  private readonly listeners = STOP_SIGNALS.map((sig) => [sig, () => this.onSignal(sig)] as const);

  private constructor(
    /** The host served. */
    readonly host: Host,
  ) {}

  /**
   * Makes the host of the world in `root` (with `opts.lock` when the
   * command took it already: it is released if this fails) and opens its
   * control socket. The host is not started: `start` is the command's choice.
   */
  static async open(root: string, opts: ServeOptions = {}): Promise<WorldServer> {
    let host: Host;
    try {
      host = new Host(root, { openTestHost, ...opts });
    } catch (e) {
      opts.lock?.release();
      throw e;
    }
    if (opts.socket !== false) {
      try {
        await host.control.listen();
      } catch (e) {
        await host.shutdown(0);
        throw e;
      }
    }
    return new WorldServer(host);
  }

  /**
   * Ends the host (`done` resolves with 0) on SIGINT, SIGTERM or SIGHUP,
   * sent to its pid or to its process group (its sandboxes and builds are in
   * sessions of their own and do not take it): the command shuts down in
   * order. A second one, while that shutdown runs, exits at once (128 + the
   * signal's number); the sandboxes end with the host (`--pdeathsig`).
   */
  stopOnSignals(): void {
    if (this.signalsOn) return;
    this.signalsOn = true;
    for (const [sig, fn] of this.listeners) Deno.addSignalListener(sig, fn);
  }

  private onSignal(sig: (typeof STOP_SIGNALS)[number]): void {
    if (this.signalled++ === 0) return this.host.exit(0);
    console.error(`sausage: ${sig} again: exiting now, without waiting for the processes`);
    Deno.exit(FORCED_EXIT[sig]);
  }

  /** Starts the host (`Host.start`: the sandboxes, then `beforeBoot`, then the boot calls). */
  start(beforeBoot?: () => Promise<void>): Promise<void> {
    return this.host.start(beforeBoot);
  }

  /** Resolves with the exit code when the host should end (`core.exit`, a signal). */
  get done(): Promise<number> {
    return this.host.done;
  }

  /**
   * Ends a transient host: takes no more connections (a command started
   * now waits for the world's lock), waits for those open to end, then
   * shuts down.
   */
  async release(graceMs?: number): Promise<void> {
    this.host.control.stopListening();
    await this.host.control.idle();
    await this.shutdown(graceMs);
  }

  /**
   * Shuts down in order: every process stopped (a guest that called
   * `core.exit` answers its caller in its grace period), the control socket
   * closed, the world's lock released, then the signals let go. A stop
   * signal during it forces an exit at once.
   */
  async shutdown(graceMs?: number): Promise<void> {
    this.signalled++; // a signal from now on is a second one
    try {
      await this.host.shutdown(graceMs);
    } finally {
      if (this.signalsOn) {
        this.signalsOn = false;
        for (const [sig, fn] of this.listeners) Deno.removeSignalListener(sig, fn);
      }
    }
  }
}

/**
 * A test instance's private host (`test_runner.ts`): served without a
 * socket or a lock, on a world that stays empty (no other host can find
 * it), called through an in-memory link as the caller `test`.
 */
export async function openTestHost(world: string, opts: HostOptions): Promise<TestHost> {
  const server = await WorldServer.open(world, { ...opts, socket: false, lock: HostLock.none() });
  const { transport, session } = server.host.control.link("test");
  return {
    host: server.host,
    caller: session,
    close: async (graceMs) => {
      await transport.close();
      await server.shutdown(graceMs);
    },
  };
}
