/**
 * Calls into a world from the CLI, through the one client of a world
 * (`core/control/world_client.ts`): its running host, or a transient host made for
 * the command and shut down after it. `build`, `methods`, `import`, `ls` and
 * `cat` use it.
 *
 * @module
 */

import type { World } from "../core/world/world.ts";
import { WorldClient } from "../core/control/world_client.ts";
import type { Request, Response } from "../rpc/message.ts";

/** Sends one request and resolves with its response. */
export type Send = (method: string, params: Record<string, unknown>) => Promise<Response>;

/**
 * Runs `body` with a way to call `world`: its running host, or a transient
 * one (never building at start); `command` names the subcommand in the
 * world's lock file. Notifications of the calls go to `onNotify`. A
 * transient host gives its processes `graceMs` to stop at the end.
 */
export async function withWorld<T>(
  world: World,
  command: string,
  onNotify: (msg: Request) => void,
  body: (send: Send, client: WorldClient) => Promise<T>,
  graceMs?: number,
): Promise<T> {
  const client = await WorldClient.reach(world, {
    command: `sausage ${command}`,
    host: { sandboxes: 1 },
    report: (line) => console.error(line),
  });
  client.onNotify = onNotify;
  try {
    return await body((method, params) => client.send(method, params), client);
  } finally {
    await client.close(graceMs);
  }
}
