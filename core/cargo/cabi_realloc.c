/*
 * cabi_realloc for plugins built on the offline wasm32-wasip1 path, linked
 * into every such module (core/cargo/main_realloc.ts).
 *
 * Why: the preview-1 adapter takes its stack and its state from the main
 * module's `cabi_realloc`. A plain Rust program has none, so the adapter
 * falls back to `memory.grow`, at instantiation, before the program's first
 * malloc. Debian's 2022 wasi-libc then starts its heap at __heap_base and
 * ends it at the memory's size at that first malloc: the adapter's pages
 * become heap, and the first large allocation overwrites them ("assertion
 * failed at adapter line 2745", then `unreachable`). Through malloc, the
 * adapter's memory is the heap's own.
 *
 * Weak: a module that defines its own (the SDK's wit-bindgen) keeps it.
 */

typedef unsigned long size_t;

void *malloc(size_t size);
void free(void *ptr);
int posix_memalign(void **out, size_t align, size_t size);
void *memcpy(void *dst, const void *src, size_t n);
void abort(void);

__attribute__((weak, export_name("cabi_realloc")))
void *cabi_realloc(void *old_ptr, size_t old_size, size_t align, size_t new_size) {
    if (new_size == 0) return (void *)align;
    if (align < sizeof(void *)) align = sizeof(void *);
    void *ptr = 0;
    if (posix_memalign(&ptr, align, new_size) != 0) abort();
    if (old_ptr) {
        memcpy(ptr, old_ptr, old_size < new_size ? old_size : new_size);
        free(old_ptr);
    }
    return ptr;
}
