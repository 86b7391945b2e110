/**
 * The console of `sausage run` on a terminal: opened after the boot calls,
 * it runs until `quit` or Ctrl-D (exit code 0) or until the host ends
 * (`core.exit`, SIGTERM). The host's own lines (boot results) go above the
 * prompt while it is open.
 *
 * @module
 */

import type { Host } from "../../core/mod.ts";
import { Console } from "./console.ts";
import { LocalConsoleHost } from "./local_host.ts";
import { colorWanted, makeStyle } from "./style.ts";

/** Where the host's report lines go; the console points it at itself while open. */
export interface ReportSink {
  to: (line: string) => void;
}

/** Whether `sausage run` opens the console: not `--headless`, and stdin and stdout are terminals. */
export function consoleWanted(headless: boolean): boolean {
  return !headless && Deno.stdin.isTerminal() && Deno.stdout.isTerminal();
}

/** Runs the console until it is left or the host ends; resolves with the host's exit code. */
export async function runConsole(host: Host, reports: ReportSink): Promise<number> {
  const style = makeStyle(colorWanted(Deno.stdout.isTerminal(), (n) => Deno.env.get(n)));
  const c = new Console(new LocalConsoleHost(host), style);
  const before = reports.to;
  reports.to = (line) => c.notice(line);
  try {
    return await Promise.race([host.done, c.run().then(() => 0)]);
  } finally {
    c.close();
    reports.to = before;
  }
}
