/* The runtime of LLVM's Wasm SjLj lowering (-mllvm -wasm-enable-sjlj), as emscripten has it:
 * wasi-libc of 2022 has none. setjmp ids live in the jmp_buf's first word. */
#include <stdint.h>
#include <stdlib.h>

typedef struct TableEntry { uint32_t id, label; } TableEntry;

static uint32_t setjmp_id = 0;
static uint32_t temp_ret0 = 0;

uint32_t getTempRet0(void) { return temp_ret0; }
void setTempRet0(uint32_t value) { temp_ret0 = value; }

TableEntry *saveSetjmp(uint32_t *env, uint32_t label, TableEntry *table, uint32_t size) {
  setjmp_id++;
  *env = setjmp_id;
  for (uint32_t i = 0; i < size; i++) {
    if (table[i].id == 0) {
      table[i].id = setjmp_id;
      table[i].label = label;
      table[i + 1].id = 0;
      setTempRet0(size);
      return table;
    }
  }
  size *= 2;
  table = (TableEntry *)realloc(table, sizeof(TableEntry) * (size + 1));
  setjmp_id--;
  table = saveSetjmp(env, label, table, size);
  setTempRet0(size);
  return table;
}

uint32_t testSetjmp(uint32_t id, TableEntry *table, uint32_t size) {
  uint32_t curr;
  for (uint32_t i = 0; i < size && (curr = table[i].id) != 0; i++) {
    if (curr == id) return table[i].label;
  }
  return 0;
}

struct WasmLongjmpArgs { void *env; int val; };
static struct WasmLongjmpArgs longjmp_args;

void __wasm_longjmp(void *env, int val) {
  longjmp_args.env = env;
  longjmp_args.val = val;
  __builtin_wasm_throw(1, &longjmp_args);
}
