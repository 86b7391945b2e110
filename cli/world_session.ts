/**
 * Calls into a world from the CLI: through its running host (the control
 * socket), or through a transient host made for the command and shut down
 * after it. `call`, `build` and `methods` use it.
 *
 * @module
 */

import { Host, LocalCaller, type World } from "../core/mod.ts";
import type { Request, Response } from "../rpc/message.ts";
import { HostClient } from "./client.ts";

/** Sends one request and resolves with its response. */
export type Send = (method: string, params: Record<string, unknown>) => Promise<Response>;

/**
 * Runs `body` with a way to call `world`: its running host, or a transient
 * one (never building at start). Notifications of the calls go to `onNotify`.
 */
export async function withWorld<T>(
  world: World,
  onNotify: (msg: Request) => void,
  body: (send: Send, running: boolean) => Promise<T>,
): Promise<T> {
  const client = await HostClient.connect(world);
  if (client) {
    client.onNotify = onNotify;
    try {
      return await body((method, params) => client.send(method, params), true);
    } finally {
      client.close();
    }
  }
  const host = new Host(world.root, { sandboxes: 1 });
  const caller = new LocalCaller("console", (msg) => {
    if ("method" in msg) onNotify(msg as Request);
  });
  try {
    return await body(
      async (method, params) => await caller.call(host.router, method, params) as Response,
      false,
    );
  } finally {
    caller.hasEnded = true;
    await host.shutdown();
  }
}
