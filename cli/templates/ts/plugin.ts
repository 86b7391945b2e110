// __PLUGIN__: a Sausage plugin in TypeScript (docs/languages.md). Every exported function is a
// method: its doc comment and the types of its params and result are its rpc.discover document.
// Every call runs a new process; calls to other plugins (`call`) wait for their answer.
import { fs, type integer, log, RpcError, stateDir } from "sausage";

/** A greeting, and how many this plugin has made. */
export interface Greeting {
  /** The text. */
  text: string;
  /** How many greetings so far, this one included. */
  count: integer;
}

/**
 * Greet someone by name.
 *
 * Counts the greetings in the plugin's state folder.
 */
export function greet(params: {
  /** Who to greet (default: world). */
  name?: string;
}): Greeting {
  const name = params.name ?? "world";
  if (name.length > 100) throw new RpcError(-32602, "name: at most 100 characters");
  const file = `${stateDir()}/greetings`;
  const count = Number(fs.readTextOr(file, "0")) + 1;
  fs.writeText(file, String(count));
  log("info", "greeted", { name, count });
  return { text: `Hello, ${name}!`, count };
}
