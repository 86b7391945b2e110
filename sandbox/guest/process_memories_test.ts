import { strict as assert } from "node:assert";
import { GuestControl } from "./guest_control.ts";
import { MemoryPool } from "./memory_pool.ts";
import { MemoryShare } from "./memory_share.ts";
import { InitialMemoryRefused, ProcessMemories } from "./process_memories.ts";
import { INITIAL_MEMORY_TRAP, WORLD_MEMORY_TRAP } from "../hop/terms.ts";
import { trapMessage } from "./trap_message.ts";

const MIB = 2 ** 20;
const pages = (mib: number) => mib * 16;

Deno.test("a module's initial memory is charged against the share before it exists, and given back", () => {
  const share = new MemoryShare(10 * MIB);
  const pool = new MemoryPool(0);
  const a = new GuestControl(8 * MIB, share);
  const b = new GuestControl(8 * MIB, share);
  const memory = new ProcessMemories(pool, a).take({ initial: pages(6) });
  assert.equal(memory.buffer.byteLength, 6 * MIB);
  assert.equal(share.used, 6 * MIB, "charged");
  assert.throws(
    () => new ProcessMemories(pool, b).take({ initial: pages(6) }),
    InitialMemoryRefused,
  );
  assert.equal(share.used, 6 * MIB, "a refused module takes nothing");
  assert.match(
    trapMessage(new InitialMemoryRefused(6 * MIB), b),
    new RegExp(`^${WORLD_MEMORY_TRAP}:.*world_memory_mib.*6 MiB of initial memory`),
  );
  a.releaseMemory();
  assert.equal(share.used, 0, "an ended process gives its initial memory back");
  new ProcessMemories(pool, b).take({ initial: pages(6) });
  assert.equal(share.used, 6 * MIB, "then another may have it");
});

Deno.test("a module whose initial memory passes memory_mib is refused, whatever the share", () => {
  const share = new MemoryShare(Infinity);
  const guest = new GuestControl(4 * MIB, share);
  assert.throws(
    () => new ProcessMemories(new MemoryPool(0), guest).take({ initial: pages(5) }),
    InitialMemoryRefused,
  );
  assert.equal(share.used, 0);
  assert.match(
    trapMessage(new InitialMemoryRefused(5 * MIB), guest),
    new RegExp(`^${INITIAL_MEMORY_TRAP}: a module declares 5 MiB .*4 MiB, "memory_mib"`),
  );
});

Deno.test("a kept memory larger than asked is charged whole while its process runs", () => {
  const share = new MemoryShare(100 * MIB);
  const pool = new MemoryPool(64 * MIB);
  pool.give(new WebAssembly.Memory({ initial: pages(3) }), { initial: pages(3) });
  const guest = new GuestControl(8 * MIB, share);
  const memory = new ProcessMemories(pool, guest).take({ initial: pages(1) });
  assert.equal(memory.buffer.byteLength, 3 * MIB);
  assert.equal(share.used, 3 * MIB);
  guest.releaseMemory();
  assert.equal(share.used, 0);
});
