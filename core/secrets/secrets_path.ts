/**
 * Where a world's secrets live: one file per world outside every world,
 * `<secrets dir>/<world key>.json`, named by the hash of the world's real
 * path as its control socket is (`worldKey`). The folder is
 * `$SAUSAGE_SECRETS_DIR` when set (tests), else `$XDG_CONFIG_HOME/sausage/secrets`,
 * else `~/.config/sausage/secrets`: config of the owner's, which survives a
 * reboot (unlike the runtime folder of the sockets) and is never in a world.
 *
 * @module
 */

import { worldKey } from "../control/control_path.ts";

/** The folder of this user's secrets files (not created here: `secret_store.ts` makes it 0700). */
export function secretsDir(
  env: (name: string) => string | undefined = (name) => Deno.env.get(name),
): string {
  const explicit = env("SAUSAGE_SECRETS_DIR");
  if (explicit) return explicit.replace(/\/+$/, "") || "/";
  const xdg = env("XDG_CONFIG_HOME");
  if (xdg) return `${xdg.replace(/\/+$/, "")}/sausage/secrets`;
  const home = env("HOME");
  if (!home) {
    throw new Error(
      "no folder for secrets: set XDG_CONFIG_HOME, HOME or SAUSAGE_SECRETS_DIR",
    );
  }
  return `${home}/.config/sausage/secrets`;
}

/** The secrets file of the world at `root` (its real path, `World.root`). */
export async function secretsFilePath(root: string, dir = secretsDir()): Promise<string> {
  return `${dir}/${await worldKey(root)}.json`;
}
