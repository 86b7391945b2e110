/**
 * `sausage methods <world> <plugin>` on a real plugin built from Rust (the
 * `www` example): its whole description, its methods, and its endpoint
 * interface `control` with the endpoint's methods (PROTOCOL 10.1).
 */

import { strict as assert } from "node:assert";
import { builtCrate } from "./helpers/plugins.ts";
import { makeWorld } from "./helpers/world.ts";
import { sausage } from "./helpers/cli.ts";

const www = await builtCrate("examples/www", "www");

Deno.test({
  name: "methods shows the whole description, the methods and the endpoint interfaces",
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const world = await makeWorld({ plugins: { www } });
  try {
    const r = await sausage("methods", world, "www");
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.split("\n");
    assert.equal(lines[0], "www: A web server for the files in `/state/www/`.");
    // The rest of the module's doc, to its last word.
    assert.match(
      r.stdout,
      /^ {4}detached, or the server ends with its caller\. The running server serves$/m,
    );
    assert.match(
      r.stdout,
      /^ {4}`\/proc\/<pid>\/fs\/` \(`hits`: the HTTP requests it answered\)\.$/m,
    );
    assert.match(
      r.stdout,
      /^ {4}says otherwise: `\{"host": "0\.0\.0\.0"\}` serves every network interface\.$/m,
    );
    assert.match(r.stdout, /^www\.start \{port: integer.*\} -> string$/m);
    assert.match(r.stdout, /^ {4}port: integer.*, required\. The TCP port to listen on/m);
    const endpoint = lines.findIndex((l) => l.startsWith("endpoint control "));
    assert.ok(endpoint > 0, r.stdout);
    assert.match(lines[endpoint], /served by a process of www .* \/proc\/<pid>\/control/);
    const after = lines.slice(endpoint).join("\n");
    assert.match(after, /^ {2}control\.stats \{\} -> integer/m);
    assert.match(
      after,
      /^ {6}The number of HTTP requests that the server answered since its start\.$/m,
    );
    assert.match(after, /^ {2}control\.stop \{\}/m);
  } finally {
    await Deno.remove(world, { recursive: true });
  }
});
