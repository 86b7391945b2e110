import { strict as assert } from "node:assert";
import type { Diagnostic } from "./diagnostic.ts";
import { importWarnings } from "./unused_imports.ts";

/** rustc's warnings (`--message-format json`) for a consumer of `notes` and `www` through an SDK whose `import!` gives the generated tokens the literal's span. */
const FIXTURE = decodeURIComponent(new URL("./testdata/unused_imports", import.meta.url).pathname);
const diagnostics = JSON.parse(await Deno.readTextFile(`${FIXTURE}/diagnostics.json`)) as Record<
  string,
  Diagnostic[]
>;

Deno.test("an unused imported function and an unused endpoint method become advice", async () => {
  assert.deepEqual(
    await importWarnings(diagnostics.one_function_and_one_endpoint_method, FIXTURE),
    [
      "notes.list is imported but not used: remove it from imports/notes.json",
      "www.control.stop (endpoint control) is imported but not used: remove it from x-sausage-endpoints.control in imports/www.json",
    ],
  );
});

Deno.test("an unused endpoint is named once; generated types are dropped; the plugin's own warnings stay", async () => {
  const warnings = await importWarnings(diagnostics.nothing_of_www, FIXTURE);
  assert.deepEqual(warnings.slice(0, 3), [
    "notes.list is imported but not used: remove it from imports/notes.json",
    "www.start is imported but not used: remove it from imports/www.json",
    "the endpoint www.control is imported but not used: remove it from x-sausage-endpoints in imports/www.json",
  ]);
  assert.equal(warnings.length, 4, warnings.join("\n---\n"));
  assert.match(
    warnings[3],
    /^warning: struct `ServeParams` is never constructed\n +--> src\/main\.rs:21:8/,
  );
});

Deno.test("warnings outside an import! are kept as rustc rendered them", async () => {
  const own: Diagnostic = {
    level: "warning",
    message: "unused variable: `x`",
    code: { code: "unused_variables" },
    spans: [{
      file_name: "src/main.rs",
      line_start: 2,
      is_primary: true,
      label: null,
      text: [{ text: "    let x = 1;", highlight_start: 9, highlight_end: 10 }],
    }],
    rendered: "warning: unused variable: `x`\n --> src/main.rs:2:9\n",
  };
  assert.deepEqual(await importWarnings([own], FIXTURE), [
    "warning: unused variable: `x`\n --> src/main.rs:2:9",
  ]);
});
