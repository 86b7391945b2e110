import assert from "node:assert/strict";
import { defaultLimits, readLimitsChecked } from "./limits.ts";

/** A world folder whose config/limits.json holds `text` (none when null). */
function worldWith(text: string | null): string {
  const root = Deno.makeTempDirSync();
  if (text !== null) {
    Deno.mkdirSync(`${root}/config`);
    Deno.writeTextFileSync(`${root}/config/limits.json`, text);
  }
  return root;
}

const cases: { file: string | null; limits: Record<string, number>; problems: RegExp[] }[] = [
  { file: null, limits: {}, problems: [] },
  { file: '{"memory_mib": 64}', limits: { memory_mib: 64 }, problems: [] },
  {
    file: '{"memory_mib": "lots", "processes": 20}',
    limits: { processes: 20 },
    problems: [
      /config\/limits\.json: "memory_mib" is "lots", not an integer from 1 to 4096; the default 256 is used/,
    ],
  },
  {
    file: '{"stall_ms": 5, "frobs": 1}',
    limits: {},
    problems: [/"stall_ms" is 5, .*default 10000/, /unknown key "frobs" ignored/],
  },
  {
    file: "{not json",
    limits: {},
    problems: [
      /^config\/limits\.json:1:2: an unexpected character: fix the file .*; every limit has its default$/,
    ],
  },
  { file: '{"processes": 7, // JSONC\n}', limits: { processes: 7 }, problems: [] },
  { file: "[1]", limits: {}, problems: [/must be an object; every limit has its default/] },
  { file: '{"disk_mib": 1.5}', limits: {}, problems: [/"disk_mib" is 1.5/] },
];

Deno.test("config/limits.json: good keys apply; each bad one is reported with the key and the default", () => {
  for (const c of cases) {
    const root = worldWith(c.file);
    try {
      const { limits, problems } = readLimitsChecked(root);
      assert.deepEqual(limits, { ...defaultLimits(), ...c.limits }, String(c.file));
      assert.equal(problems.length, c.problems.length, problems.join("\n"));
      c.problems.forEach((re, i) => assert.match(problems[i], re));
    } finally {
      Deno.removeSync(root, { recursive: true });
    }
  }
});
