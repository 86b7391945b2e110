import { strict as assert } from "node:assert";
import { errorText, noteText } from "./error_text.ts";

Deno.test("errorText prints the compiler's output as text, and not the step (for scripts)", () => {
  const text = errorText({
    code: -32000,
    message: "hello was not built: cargo build failed",
    data: { step: "build", output: "error[E0422]: cannot find struct\n  --> src/main.rs:3:5\n" },
  });
  assert.equal(
    text,
    "error -32000: hello was not built: cargo build failed\n\nerror[E0422]: cannot find struct\n  --> src/main.rs:3:5",
  );
});

Deno.test("errorText keeps an activation refusal's lines as they are", () => {
  const message = "notes was not activated: 1 consumer breaks.\n- agent imports notes.add";
  assert.equal(
    errorText({ code: -32003, message, data: { plugins: ["notes"], problems: [{ a: 1 }] } }),
    `error -32003: ${message}`,
  );
});

Deno.test("noteText takes a progress line, and JSON otherwise", () => {
  assert.equal(
    noteText({ call: 1, name: "progress", params: { line: "Compiling x" } }),
    "Compiling x",
  );
  assert.equal(noteText({ a: 1 }), '{"a":1}');
});

Deno.test("errorText of a panic: its message and line, the process's own lines, no core events", () => {
  const pid = "hello-0190a0a0-0000-7000-8000-000000000000";
  const text = errorText({
    code: -32002,
    message:
      `probe was asked to panic (${pid} panicked at src/main.rs:61:20, and ended without an answer)`,
    data: {
      status: 1,
      trap: "wasm trap: unreachable",
      lines: [
        '[core] {"event":"start","method":"panic"}',
        "about to panic",
        "thread 'main' panicked at src/main.rs:61:20:",
        "probe was asked to panic",
        "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace",
        '[core] {"event":"exit","status":1}',
      ],
    },
  });
  assert.equal(
    text,
    `error -32002: probe was asked to panic (${pid} panicked at src/main.rs:61:20, and ended without an answer)\n\nabout to panic`,
  );
});

Deno.test("errorText drops Rust's backtrace note from failed tests' output", () => {
  const text = errorText({
    code: -32000,
    message: "hello was not built: 1 of 2 tests failed",
    data: {
      step: "test",
      output: "thread 'greets' panicked at src/main.rs:9:5:\nboom\n" +
        "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\ntest result: FAILED",
    },
  });
  assert.doesNotMatch(text, /RUST_BACKTRACE|step/);
  assert.match(text, /boom\ntest result: FAILED$/);
});
