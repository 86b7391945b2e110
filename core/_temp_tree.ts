/**
 * A test helper: a temporary folder with the files named, for tests of code
 * that walks folders (the folder hasher, the SDK copy).
 *
 * @module
 */

/** Makes a temporary folder holding `files` (path → text); resolves with its path. */
export async function tempTree(
  files: Record<string, string>,
  prefix = "sausage-",
): Promise<string> {
  const root = await Deno.makeTempDir({ prefix });
  for (const [path, text] of Object.entries(files)) {
    const cut = path.lastIndexOf("/");
    if (cut > 0) await Deno.mkdir(`${root}/${path.slice(0, cut)}`, { recursive: true });
    await Deno.writeTextFile(`${root}/${path}`, text);
  }
  return root;
}
