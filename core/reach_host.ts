/**
 * The one way a command reaches a world's host: it connects to the running
 * host's control socket, or becomes the host itself under the world's lock
 * (`core/host_lock.ts`). When the world is locked and its socket does not
 * answer yet (a host is starting, or is building at start), it waits for
 * the socket and uses it, or takes the lock once the holder is gone. So
 * however many commands start together, one host serves the world.
 *
 * A host made here serves the control socket too, so the commands that
 * start meanwhile use it rather than waiting; a transient one (`sausage
 * call`, `build`, `methods`, `ls`, `cat`) ends with `release`, after the
 * connections it took have ended.
 *
 * @module
 */

import { HostClient } from "./host_client.ts";
import { describeHolder, HostLock } from "./host_lock.ts";
import type { World } from "./world.ts";
import type { Host } from "./host.ts";
import type { ControlServer } from "./control_server.ts";
import type { HostOptions } from "./host_options.ts";

/** How long a command waits in silence for a starting host before it says so. */
export const WAIT_NOTE_MS = 2000;

/** What `reachHost` found: a client of the running host, or a host made here. */
export type Reached =
  | { client: HostClient; host?: undefined; control?: undefined }
  | { host: Host; control: ControlServer; client?: undefined };

/** How `reachHost` makes a host when none runs. */
export interface ReachOptions {
  /** What the lock file says holds the world (`sausage call`, `sausage mcp`). */
  command: string;
  /** A host that ends with the command (default true). */
  transient?: boolean;
  /** Other options of the host made here. */
  host?: HostOptions;
  /** Hears one line when the command waits for a starting host. */
  report?: (line: string) => void;
}

/**
 * Connects to the running host of `world`, or makes one holding the
 * world's lock (with its control socket served, not started: `Host.start`
 * is the caller's choice).
 */
export async function reachHost(world: World, opts: ReachOptions): Promise<Reached> {
  const started = Date.now();
  let told = false;
  let pause = 10;
  for (;;) {
    const client = await HostClient.connect(world);
    if (client) return { client };
    const transient = opts.transient ?? true;
    const lock = HostLock.tryTake(world, { command: opts.command, transient });
    if (lock) {
      // Loaded only here: a command served by a running host does not load the host's modules.
      const [{ Host }, { ControlServer }] = await Promise.all([
        import("../core/host.ts"),
        import("../core/control_server.ts"),
      ]);
      let host: Host;
      try {
        host = new Host(world.root, { ...opts.host, lock, command: opts.command, transient });
      } catch (e) {
        lock.release();
        throw e;
      }
      try {
        return { host, control: await ControlServer.start(host) };
      } catch (e) {
        await host.shutdown(0);
        throw e;
      }
    }
    if (!told && Date.now() - started > WAIT_NOTE_MS) {
      told = true;
      opts.report?.(
        `sausage: waiting for the host of ${world.root} (${
          describeHolder(HostLock.holder(world))
        }) to open its control socket`,
      );
    }
    await new Promise((r) => setTimeout(r, pause));
    pause = Math.min(pause * 2, 100);
  }
}

/**
 * Ends what `reachHost` gave: closes the client, or (for a host made here)
 * stops taking connections, waits for those open to end, and shuts the host
 * down (which releases the world's lock).
 */
export async function release(reached: Reached, graceMs?: number): Promise<void> {
  if (reached.client) return reached.client.close();
  reached.control.stopListening();
  await reached.control.idle();
  await reached.host.shutdown(graceMs);
}
