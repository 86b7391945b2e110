/**
 * The entry point of `sausage`. See `cli/main.ts` for the subcommands. The
 * hidden command `__sandbox` makes a compiled binary serve as its own
 * sandbox subprocess (`core/sandboxes/sandbox.ts`).
 *
 * @module
 */

import { loadLater } from "./core/load_later.ts";

if (Deno.args[0] === "__sandbox") {
  await loadLater(new URL("./sandbox/main.ts", import.meta.url));
} else {
  const { main } = await loadLater<typeof import("./cli/main.ts")>(
    new URL("./cli/main.ts", import.meta.url),
  );
  Deno.exit(await main(Deno.args));
}
