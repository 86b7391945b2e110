import { strict as assert } from "node:assert";
import { findPanic } from "./panic_message.ts";

Deno.test("findPanic takes the message after the panic line and drops the backtrace note", () => {
  assert.deepEqual(
    findPanic([
      "started",
      "thread 'main' panicked at src/main.rs:10:5:",
      "index out of bounds: the len is 0 but the index is 3",
      "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace",
    ]),
    { at: "src/main.rs:10:5", message: "index out of bounds: the len is 0 but the index is 3" },
  );
});

Deno.test("findPanic keeps a message of several lines, and is null without a panic", () => {
  assert.equal(
    findPanic(["thread 'main' panicked at src/lib.rs:1:1:", "a", "b"])?.message,
    "a\nb",
  );
  assert.equal(findPanic(["just a line"]), null);
});
