/* imports_env: a core module that imports env.host_thing, which no WASI host provides. */
__attribute__((import_module("env"), import_name("host_thing"))) int host_thing(void);

int main(void) { return host_thing(); }
