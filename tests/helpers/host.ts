/**
 * Runs a real host in the test process (its sandboxes are real subprocesses)
 * and makes calls as the `console` caller, through the one client of a world
 * (`core/control/world_client.ts`).
 *
 * @module
 */

import { openTestHost } from "../../core/control/world_server.ts";
import { Host } from "../../core/host.ts";
import { WorldClient } from "../../core/control/world_client.ts";
import type { Message, Response } from "../../rpc/message.ts";
import { makeWorld, type WorldSpec } from "./world.ts";

/** A host for one test, with a caller that records notifications. */
export class TestHost {
  /** Every notification delivered to the test's caller. */
  readonly notes: Message[] = [];
  /** The test's client of the host, named `console`. */
  readonly client: WorldClient;

  private constructor(readonly host: Host, readonly root: string) {
    this.client = WorldClient.of(host, "console");
    this.client.onNotify = (m) => this.notes.push(m);
  }

  /** Creates a world from `spec` and starts a host on it. */
  static async start(spec: WorldSpec = {}, opts: { watch?: boolean } = {}): Promise<TestHost> {
    return await TestHost.open(await makeWorld(spec), opts);
  }

  /** Starts a host on an existing world folder (it is removed at `close`). */
  static async open(root: string, opts: { watch?: boolean } = {}): Promise<TestHost> {
    const host = new Host(root, { sandboxes: 1, watch: opts.watch ?? false, openTestHost });
    await host.start();
    return new TestHost(host, root);
  }

  /** Makes a call and resolves with the whole response. */
  call(method: string, params: Record<string, unknown> = {}): Promise<Response> {
    return this.client.send(method, params);
  }

  /** Makes a call and resolves with its result; throws with the error otherwise. */
  async result<T = unknown>(method: string, params: Record<string, unknown> = {}): Promise<T> {
    const r = await this.call(method, params);
    if (r.error) throw new Error(`${method} failed: ${JSON.stringify(r.error)}`);
    return r.result as T;
  }

  /** Shuts the host down and removes the world. */
  async close(graceMs = 200): Promise<void> {
    await this.host.shutdown(graceMs);
    await Deno.remove(this.root, { recursive: true }).catch(() => {});
  }
}

/** Polls `f` until it returns a truthy value, or fails after `ms`. */
export async function eventually<T>(
  f: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  what: string,
  ms = 5000,
): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * Makes a `test(name, fn, files?)` that runs `fn` against a fresh host on a
 * world with `spec` (and `files`, when given), and always closes it.
 */
export function hostTests(spec: WorldSpec) {
  return (name: string, fn: (h: TestHost) => Promise<void>, files?: Record<string, string>) =>
    Deno.test({
      name,
      sanitizeOps: false,
      sanitizeResources: false,
      async fn() {
        const h = await TestHost.start({ ...spec, files: { ...spec.files, ...files } });
        try {
          await fn(h);
        } finally {
          await h.close();
        }
      },
    });
}
