import { strict as assert } from "node:assert";
import { errorText, noteText } from "./error_text.ts";

Deno.test("errorText prints the compiler's output as text, warnings and other data after it", () => {
  const text = errorText({
    code: -32000,
    message: "hello was not built: cargo build failed",
    data: { step: "build", output: "error[E0422]: cannot find struct\n  --> src/main.rs:3:5\n" },
  });
  assert.equal(
    text,
    'error -32000: hello was not built: cargo build failed\n\nerror[E0422]: cannot find struct\n  --> src/main.rs:3:5\n\n{\n  "step": "build"\n}',
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
