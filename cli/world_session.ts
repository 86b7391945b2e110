/**
 * Calls into a world from the CLI: through its running host (the control
 * socket), or through a transient host made for the command and shut down
 * after it (`core/reach_host.ts`). `build` and `methods` use it.
 *
 * @module
 */

import { LocalCaller, type World } from "../core/mod.ts";
import type { Request, Response } from "../rpc/message.ts";
import { reachHost, release } from "../core/reach_host.ts";

/** Sends one request and resolves with its response. */
export type Send = (method: string, params: Record<string, unknown>) => Promise<Response>;

/**
 * Runs `body` with a way to call `world`: its running host, or a transient
 * one (never building at start); `command` names the subcommand in the
 * world's lock file. Notifications of the calls go to `onNotify`.
 */
export async function withWorld<T>(
  world: World,
  command: string,
  onNotify: (msg: Request) => void,
  body: (send: Send, running: boolean) => Promise<T>,
): Promise<T> {
  const reached = await reachHost(world, {
    command: `sausage ${command}`,
    host: { sandboxes: 1 },
    report: (line) => console.error(line),
  });
  const { client, host } = reached;
  if (client) {
    client.onNotify = onNotify;
    try {
      return await body((method, params) => client.send(method, params), true);
    } finally {
      await release(reached);
    }
  }
  const caller = new LocalCaller("console", (msg) => {
    if ("method" in msg) onNotify(msg as Request);
  });
  try {
    return await body(
      async (method, params) => await caller.call(host.router, method, params),
      false,
    );
  } finally {
    caller.hasEnded = true;
    await release(reached);
  }
}
