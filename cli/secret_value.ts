/**
 * The value of `sausage secret set`, read from stdin, never from the command
 * line (argv reaches shell history and `ps`). From a pipe or a file: all of
 * it, less one final newline. From a terminal: one line, not echoed.
 *
 * @module
 */

/** Control characters a terminal sends in raw mode. */
const KEYS = { ctrlC: 3, ctrlD: 4, backspace: 127, ctrlH: 8, cr: 13, lf: 10 } as const;

/** Reads the value: a terminal's line without echo (after a prompt on stderr), else all of stdin. */
export async function readSecretValue(name: string): Promise<string> {
  if (Deno.stdin.isTerminal()) return await readHiddenLine(`value of ${name} (not shown): `);
  const bytes = await new Response(Deno.stdin.readable).arrayBuffer();
  return withoutFinalNewline(new TextDecoder().decode(bytes));
}

/** `text` less one final `\n` or `\r\n` (what `echo` and an editor add). */
export function withoutFinalNewline(text: string): string {
  return text.endsWith("\r\n") ? text.slice(0, -2) : text.endsWith("\n") ? text.slice(0, -1) : text;
}

/** One line from the terminal in raw mode, not echoed; Ctrl-C or Ctrl-D with nothing typed cancels. */
async function readHiddenLine(prompt: string): Promise<string> {
  const enc = new TextEncoder();
  Deno.stderr.writeSync(enc.encode(prompt));
  Deno.stdin.setRaw(true);
  const bytes: number[] = [];
  const buf = new Uint8Array(256);
  try {
    for (;;) {
      const n = await Deno.stdin.read(buf);
      if (n === null) break;
      for (const b of buf.subarray(0, n)) {
        if (b === KEYS.cr || b === KEYS.lf) return new TextDecoder().decode(new Uint8Array(bytes));
        if (b === KEYS.ctrlC || (b === KEYS.ctrlD && bytes.length === 0)) {
          throw new Error("cancelled: nothing was set");
        }
        if (b === KEYS.backspace || b === KEYS.ctrlH) bytes.pop();
        else bytes.push(b);
      }
    }
    return new TextDecoder().decode(new Uint8Array(bytes));
  } finally {
    Deno.stdin.setRaw(false);
    Deno.stderr.writeSync(enc.encode("\n"));
  }
}
