/**
 * `help`: the inputs the console understands, and its keys.
 *
 * @module
 */

import { COMMANDS } from "./input.ts";
import type { Style } from "./style.ts";

/** The text of `help` (unindented). */
export function helpText(style: Style): string {
  const rows = [
    ["<plugin>.<method> {json}", "a call; {json} may be left out for {}; a final & runs it aside"],
    ["<text>", "a message to the agent (agent.chat)"],
    ...COMMANDS.map((c) => [`${c.name}${c.args ? ` ${c.args}` : ""}`, c.does]),
  ];
  const width = Math.max(...rows.map((r) => r[0].length)) + 2;
  return rows.map(([a, b]) => `${a.padEnd(width)}${b}`).join("\n") + "\n" +
    style.dim(
      "Tab completes; Up/Down and Ctrl-R go through the history;\n" +
        "Ctrl-C clears the line or cancels the running call; Ctrl-D leaves",
    );
}
