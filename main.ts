/**
 * The entry point of `sausage`. See `cli/main.ts` for the subcommands. The
 * hidden command `__sandbox` makes a compiled binary serve as its own
 * sandbox subprocess (`core/sandboxes/sandbox.ts`).
 *
 * @module
 */

if (Deno.args[0] === "__sandbox") {
  await import("./sandbox/main.ts");
} else {
  const { main } = await import("./cli/main.ts");
  Deno.exit(await main(Deno.args));
}
