/**
 * What instantiating one core module needs beyond its own imports, read
 * once from its bytes, on both engines: a memory from the pool, if it
 * imports one (`wasm/import_memory.ts`), and the preemption imports, if it
 * was made preemptible (`wasm/preempt.ts`).
 *
 * @module
 */

import { memoryImportOf, type MemoryLimits } from "../../wasm/import_memory.ts";
import type { ImportEntry } from "../../wasm/import_list.ts";
import { PREEMPT_MODULE } from "../../wasm/preempt.ts";

/** What instantiating one core module needs beyond the imports of its engine. */
export interface ModuleNeeds {
  /** The limits of the memory it imports (`wasm/import_memory.ts`), if it does. */
  memory?: MemoryLimits;
  /** It imports `sausage:preempt` (`wasm/preempt.ts`). */
  preemptible: boolean;
}

/** The needs of a module whose imports are `imports` (`listImports` of its bytes). */
export function moduleNeeds(imports: ImportEntry[]): ModuleNeeds {
  return {
    memory: memoryImportOf(imports),
    preemptible: imports.some((i) => i.module === PREEMPT_MODULE),
  };
}
