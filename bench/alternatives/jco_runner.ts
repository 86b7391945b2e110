/**
 * Runs a component that jco transpiled in its default (ES module) mode with
 * the Node.js build of its preview2-shim: `deno run -A --no-config
 * jco_runner.ts <glue URL>`. Its stdin and stdout are the process's. The
 * exit after the run is what `jco run`'s runner does too (the shim's
 * workers would keep the process alive).
 */

const { run } = await import(Deno.args[0]);
try {
  run.run();
} catch (e) {
  console.error(e);
  Deno.exit(1);
}
await new Promise((resolve) => setTimeout(resolve)); // stdout flushes
Deno.exit(0);
