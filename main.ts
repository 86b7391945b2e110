/**
 * The entry point of `sausage`. See `cli/main.ts` for the subcommands.
 *
 * @module
 */

import { main } from "./cli/main.ts";

Deno.exit(await main(Deno.args));
