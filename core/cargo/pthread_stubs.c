/*
 * pthread_join and pthread_detach for modules built on the offline
 * wasm32-wasip1 path, linked into every such module (core/cargo/toolchain.ts).
 *
 * Why: Debian's 2022 wasi-libc has no pthread functions, and libtest refers
 * to these two, so the test binary of a crate that does not use the SDK (a
 * raw-protocol plugin, a tests/*.rs file) would not link ("undefined symbol:
 * pthread_join"). Tests run one per instance, so no thread is ever started
 * and these never run; they fail with ENOSYS (52 in WASI) if they do.
 *
 * Weak: the SDK's own stubs (sausage_plugin::libc_stubs) win where present.
 */

__attribute__((weak)) int pthread_join(unsigned long thread, void **retval) {
    (void)thread;
    (void)retval;
    return 52;
}

__attribute__((weak)) int pthread_detach(unsigned long thread) {
    (void)thread;
    return 52;
}
