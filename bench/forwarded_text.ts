/**
 * What passing a result on as its text costs against serialising it again
 * (`rpc/forwarded_text.ts`): a process's answer parsed (`parseLine`, as the
 * router does), then written for a caller that reads text, the id
 * rewritten, both ways, for a no-op's `{}`, ~1 KiB and ~60 KiB. Hot loops
 * (a real call runs this code cold).
 *
 *   deno run --allow-all bench/forwarded_text.ts
 *
 * @module
 */

import { parseLine, type Response } from "../rpc/message.ts";
import { messageText, passResultText } from "../rpc/forwarded_text.ts";

const pid = "probe-0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b";
const items = (n: number) => ({
  items: Array.from({ length: n }, (_, i) => ({ n: i, text: "x".repeat(30) })),
});
const cases: [string, unknown, number][] = [
  ["{}", {}, 200_000],
  ["~1 KiB", items(20), 50_000],
  ["~60 KiB", items(1200), 1_000],
];

/** µs per run of `f`, the second of two passes. */
function time(n: number, f: () => unknown): number {
  let us = 0;
  for (let pass = 0; pass < 2; pass++) {
    const t = performance.now();
    for (let i = 0; i < n; i++) f();
    us = (performance.now() - t) * 1000 / n;
  }
  return us;
}

for (const [name, result, n] of cases) {
  const line = JSON.stringify({ jsonrpc: "2.0", id: pid, result });
  const parsed = parseLine(line) as { msg: Response };
  const parse = time(n, () => parseLine(line));
  const again = time(n, () => JSON.stringify({ jsonrpc: "2.0", id: 7, result: parsed.msg.result }));
  const asText = time(n, () => {
    const answer: Response = { jsonrpc: "2.0", id: 7, result: parsed.msg.result };
    passResultText(parsed.msg, answer);
    return messageText(answer);
  });
  console.log(
    `${name} (${line.length} B): parse ${parse.toFixed(2)} µs; then serialised again ` +
      `${again.toFixed(2)} µs, passed on as text ${asText.toFixed(2)} µs ` +
      `(load ${Deno.loadavg()[0].toFixed(2)})`,
  );
}
