import { strict as assert } from "node:assert";
import { entryText, eventText, levelsFrom, parseEvent } from "./log_event.ts";

Deno.test("a marked stderr line is an event; anything else stays a plain line", () => {
  assert.deepEqual(
    parseEvent('\u001e{"level":"warn","message":"slow","fields":{"ms":250},"span":"a:b"}'),
    { level: "warn", message: "slow", fields: { ms: 250 }, span: "a:b" },
  );
  assert.deepEqual(parseEvent('\u001e{"level":"info","message":"m","fields":{},"span":""}'), {
    level: "info",
    message: "m",
  });
  assert.equal(parseEvent('{"level":"info","message":"m"}'), null, "no marker");
  assert.equal(parseEvent('\u001e{"level":"loud","message":"m"}'), null);
  assert.equal(parseEvent('\u001e{"level":"info"}'), null);
  assert.equal(parseEvent('\u001e{"level":"info","message":"m","fields":[1]}'), null);
  assert.equal(parseEvent("\u001enot json"), null);
  assert.equal(parseEvent(""), null);
});

Deno.test("events read as tracing's lines; levels order from trace to error", () => {
  assert.equal(
    eventText({ level: "warn", message: "slow", fields: { ms: 250, t: "x" }, span: "a:b" }),
    'WARN a:b: slow ms=250 t="x"',
  );
  assert.equal(entryText({ line: "plain" }), "plain");
  assert.equal(entryText({ line: "m", level: "error" }), "ERROR m");
  assert.deepEqual(levelsFrom("warn"), ["warn", "error"]);
});
