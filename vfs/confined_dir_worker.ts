/**
 * A thread for `confined_dir_test.ts`: enters a folder of its own again and
 * again through `inFolder`, as another test module of a `deno test --parallel`
 * run (a thread of the same process) does, until told to stop.
 *
 * @module
 */

import { inFolder } from "./confined_dir.ts";

self.onmessage = (e: MessageEvent<{ root: string }>) => {
  const { root } = e.data;
  Deno.mkdirSync(`${root}/dir`, { recursive: true });
  let entered = 0;
  const failures: string[] = [];
  const loop = () => {
    for (let i = 0; i < 200; i++) {
      try {
        inFolder(root, `${root}/dir`, () => entered++);
      } catch (e) {
        failures.push(String(e));
      }
    }
    setTimeout(loop, 0);
  };
  (self as unknown as Worker).postMessage({ ready: true });
  loop();
  // It runs until the test terminates it; `entered` shows it ran.
  setInterval(() => (self as unknown as Worker).postMessage({ entered, failures }), 50);
};
