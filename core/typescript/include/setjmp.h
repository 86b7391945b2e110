/* setjmp for wasm32-wasi with LLVM's Wasm SjLj lowering (-mllvm -wasm-enable-sjlj):
 * the calls are rewritten by the compiler; wasm_sjlj.c is their runtime. */
#ifndef SAUSAGE_SETJMP_H
#define SAUSAGE_SETJMP_H
typedef struct { unsigned long words[8]; } jmp_buf[1];
int setjmp(jmp_buf env);
void longjmp(jmp_buf env, int val) __attribute__((noreturn));
#define _setjmp setjmp
#define _longjmp longjmp
#endif
