import assert from "node:assert/strict";
import { DiskBudget } from "./disk_budget.ts";
import { FsError } from "./mount.ts";

Deno.test("a disk budget counts the folder once, adds growth, refuses past its bound, and gives back", () => {
  const root = Deno.makeTempDirSync();
  try {
    Deno.writeFileSync(`${root}/a`, new Uint8Array(1000));
    Deno.mkdirSync(`${root}/sub`);
    Deno.writeFileSync(`${root}/sub/b`, new Uint8Array(3000));
    const budget = new DiskBudget(root, 10_000);
    assert.equal(budget.count(), 1000 + 3000 + 4096);
    budget.grow(1000);
    assert.throws(
      () => budget.grow(1000),
      (e) => e instanceof FsError && e.code === "insufficient-space",
    );
    budget.shrink(3000);
    budget.grow(1000); // the deletion made room
    assert.equal(budget.count(), 1000 + 3000 + 4096 + 1000 - 3000 + 1000);
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});

Deno.test("a disk budget counts again before refusing, so space freed by others is seen", async () => {
  const root = Deno.makeTempDirSync();
  try {
    Deno.writeFileSync(`${root}/big`, new Uint8Array(9000));
    const budget = new DiskBudget(root, 10_000);
    assert.throws(() => budget.grow(2000), /disk bound/);
    Deno.removeSync(`${root}/big`); // freed by someone else (another sandbox, the owner)
    await new Promise((r) => setTimeout(r, 1100));
    budget.grow(2000);
    assert.equal(budget.count(), 2000);
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});

Deno.test("a disk budget primed at a sandbox's start has its count before the first write", async () => {
  const root = Deno.makeTempDirSync();
  try {
    Deno.writeFileSync(`${root}/a`, new Uint8Array(500));
    const budget = new DiskBudget(root, 10_000);
    await budget.prime();
    Deno.writeFileSync(`${root}/b`, new Uint8Array(700)); // not seen until the next walk
    assert.equal(budget.count(), 500, "the primed count, no walk at the first use");
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});
