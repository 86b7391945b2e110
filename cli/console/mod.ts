/**
 * The console of `sausage run` (section 15): line editing, history,
 * completion, calls, the filesystem, processes and the journal, in one
 * terminal while the world runs.
 *
 * @module
 */

export { AGENT, Console, PROMPT } from "./console.ts";
export type { CallHandle, CallOutcome, ConsoleHost } from "./console_host.ts";
export { LocalConsoleHost } from "./local_host.ts";
export { colorWanted, makeStyle, type Style } from "./style.ts";
