/**
 * Where Sausage keeps things outside the world: the cache folder (section 16).
 *
 * @module
 */

/** `$XDG_CACHE_HOME/sausage`, or `~/.cache/sausage` (overridden by `SAUSAGE_CACHE_DIR`). */
export function cacheDir(): string {
  const explicit = Deno.env.get("SAUSAGE_CACHE_DIR");
  if (explicit) return explicit;
  const xdg = Deno.env.get("XDG_CACHE_HOME");
  if (xdg) return `${xdg}/sausage`;
  return `${Deno.env.get("HOME") ?? "/tmp"}/.cache/sausage`;
}
