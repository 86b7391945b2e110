/**
 * A module loaded when it is needed, not before. Deno loads and prepares the
 * whole graph of every dynamic `import("./literal.ts")` it can see before the
 * importing module runs, so a literal specifier on a command's path (the
 * entry point's commands, the client's transient host) costs every start as
 * if it were a static import: 35-50 ms before `main.ts`'s first line, for the
 * host's ~220 modules and the npm packages, on a `sausage call` of ~180 ms.
 * A specifier Deno cannot see is loaded only when the code gets there.
 *
 * The caller names the module's type with `typeof import("./x.ts")`, which
 * the type checker follows and the loader does not. `deno compile` cannot see
 * these modules either: `scripts/dist.ts` includes them by name.
 *
 * @module
 */

/**
 * Imports the module at `url` (`new URL("./x.ts", import.meta.url)`) when
 * called, typed by the caller: `loadLater<typeof import("./x.ts")>(url)`.
 */
export function loadLater<T>(url: URL): Promise<T> {
  return import(url.href) as Promise<T>;
}
