/**
 * `config/mcp.json`: which methods of the world become MCP tools. Patterns
 * name methods as `<plugin>.<method>`; `*` matches any run of characters
 * (`secrets.*`, `*.rpc.*`).
 *
 * ```json
 * { "exclude": ["cargo.*", "core.*", "secrets.*"], "include": ["notes.*", "hello.*"] }
 * ```
 *
 * - `exclude` (default `["cargo.*", "core.*"]`): methods left out. Giving the
 *   key replaces the default, so keep those two in it unless you mean it.
 * - `include` (default: every method): when given, only matching methods
 *   (that no `exclude` pattern matches) are tools.
 *
 * The file is JSONC (comments and trailing commas). A file that is missing
 * means the defaults; a file that is not valid makes
 * every tool list call fail with a message that names the problem, so a
 * typo never exposes what it meant to hide.
 *
 * @module
 */

import { parseConfig } from "../core/world/config_file.ts";

/** Where the file lives in the world. */
export const MCP_CONFIG_PATH = "/config/mcp.json";

/** What is left out when `config/mcp.json` says nothing. */
const DEFAULT_EXCLUDE = ["cargo.*", "core.*"];

/** Which methods are tools. */
export interface ToolFilter {
  /** True when `method` (`<plugin>.<method>`) should be a tool. */
  allows(method: string): boolean;
}

/** A pattern with `*` as a regular expression over the whole name. */
function patternToRegExp(pattern: string): RegExp {
  const parts = pattern.split("*").map((p) => p.replace(/[.+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(`^${parts.join(".*")}$`);
}

function patterns(value: unknown, key: string): RegExp[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.some((v) => typeof v !== "string")) {
    throw new Error(`${MCP_CONFIG_PATH}: "${key}" must be a list of strings like "notes.*"`);
  }
  return value.map(patternToRegExp);
}

/** Parses the file's text (undefined: no file). Throws a one-line error naming the problem. */
export function parseToolFilter(text: string | undefined): ToolFilter {
  let config: unknown = {};
  if (text !== undefined) {
    // JSONC (core/world/config_file.ts): a syntax error names the line and column.
    config = parseConfig(text, MCP_CONFIG_PATH.slice(1));
  }
  if (typeof config !== "object" || config === null || Array.isArray(config)) {
    throw new Error(`${MCP_CONFIG_PATH} must be a JSON object like {"exclude": ["secrets.*"]}`);
  }
  const c = config as Record<string, unknown>;
  for (const key of Object.keys(c)) {
    if (key !== "exclude" && key !== "include") {
      throw new Error(`${MCP_CONFIG_PATH}: unknown key "${key}" (use "exclude" and "include")`);
    }
  }
  const exclude = patterns(c.exclude, "exclude") ?? DEFAULT_EXCLUDE.map(patternToRegExp);
  const include = patterns(c.include, "include");
  return {
    allows: (method) =>
      !exclude.some((r) => r.test(method)) && (!include || include.some((r) => r.test(method))),
  };
}
