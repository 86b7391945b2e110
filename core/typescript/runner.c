/*
 * The engine of TypeScript plugins (core/typescript/README.md): Duktape,
 * built for wasm32-wasi with Debian's clang and wasi-libc, running one
 * bundled script per process. The script (`SCRIPT`, linked in per plugin)
 * defines `__main(request)`, which the runner calls with the first stdin
 * line. The natives below are all the script has of the outside world.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "duktape.h"

extern const char SCRIPT[];
extern const unsigned long SCRIPT_LENGTH;

/* The longest line read from stdin (PROTOCOL 4.9 line_mib's default). */
#define MAX_LINE (16u << 20)

/* Reads one stdin line into a malloc'd buffer (without the newline); NULL at EOF. */
static char *read_line(size_t *length) {
  size_t size = 4096, n = 0;
  char *buf = malloc(size);
  int c;
  while ((c = getchar()) != EOF && c != '\n') {
    if (n + 1 >= size) {
      if (size >= MAX_LINE) break;
      size *= 2;
      buf = realloc(buf, size);
    }
    buf[n++] = (char)c;
  }
  if (c == EOF && n == 0) {
    free(buf);
    return NULL;
  }
  buf[n] = 0;
  *length = n;
  return buf;
}

/* __out(text): one line on stdout, on a fresh line (PROTOCOL 4.1). */
static duk_ret_t native_out(duk_context *ctx) {
  duk_size_t n;
  const char *s = duk_require_lstring(ctx, 0, &n);
  fputc('\n', stdout);
  fwrite(s, 1, n, stdout);
  fputc('\n', stdout);
  fflush(stdout);
  return 0;
}

/* __err(text): one line on stderr (the journal). */
static duk_ret_t native_err(duk_context *ctx) {
  duk_size_t n;
  const char *s = duk_require_lstring(ctx, 0, &n);
  fwrite(s, 1, n, stderr);
  fputc('\n', stderr);
  fflush(stderr);
  return 0;
}

/* __in(): the next stdin line, or undefined at EOF. */
static duk_ret_t native_in(duk_context *ctx) {
  size_t n;
  char *line = read_line(&n);
  if (!line) return 0;
  duk_push_lstring(ctx, line, n);
  free(line);
  return 1;
}

/* __readFile(path): the file's text, or null when it cannot be read (__errno() says why). */
static duk_ret_t native_read_file(duk_context *ctx) {
  const char *path = duk_require_string(ctx, 0);
  FILE *f = fopen(path, "rb");
  if (!f) {
    duk_push_null(ctx);
    return 1;
  }
  size_t size = 0, cap = 4096;
  char *buf = malloc(cap);
  size_t got;
  while ((got = fread(buf + size, 1, cap - size, f)) > 0) {
    size += got;
    if (size == cap) buf = realloc(buf, cap *= 2);
  }
  fclose(f);
  duk_push_lstring(ctx, buf, size);
  free(buf);
  return 1;
}

/* __writeFile(path, text): true when written whole. */
static duk_ret_t native_write_file(duk_context *ctx) {
  const char *path = duk_require_string(ctx, 0);
  duk_size_t n;
  const char *text = duk_require_lstring(ctx, 1, &n);
  FILE *f = fopen(path, "wb");
  int ok = f && fwrite(text, 1, n, f) == n;
  if (f && fclose(f) != 0) ok = 0;
  duk_push_boolean(ctx, ok);
  return 1;
}

/* __mkdir(path): true when made or already there. */
static duk_ret_t native_mkdir(duk_context *ctx) {
  const char *path = duk_require_string(ctx, 0);
  duk_push_boolean(ctx, mkdir(path, 0755) == 0 || errno == EEXIST);
  return 1;
}

/* __errno(): the last failure's text. */
static duk_ret_t native_errno(duk_context *ctx) {
  duk_push_string(ctx, strerror(errno));
  return 1;
}

/* __env(name): the variable, or undefined. */
static duk_ret_t native_env(duk_context *ctx) {
  const char *v = getenv(duk_require_string(ctx, 0));
  if (!v) return 0;
  duk_push_string(ctx, v);
  return 1;
}

static void define(duk_context *ctx, const char *name, duk_c_function f, duk_idx_t nargs) {
  duk_push_c_function(ctx, f, nargs);
  duk_put_global_string(ctx, name);
}

/* Makes the heap, defines the natives, runs the script; NULL (and a message) when it fails. */
static duk_context *start(void) {
  duk_context *ctx = duk_create_heap_default();
  define(ctx, "__out", native_out, 1);
  define(ctx, "__err", native_err, 1);
  define(ctx, "__in", native_in, 0);
  define(ctx, "__readFile", native_read_file, 1);
  define(ctx, "__writeFile", native_write_file, 2);
  define(ctx, "__mkdir", native_mkdir, 1);
  define(ctx, "__errno", native_errno, 0);
  define(ctx, "__env", native_env, 1);
  duk_push_string(ctx, "plugin.js");
  if (duk_pcompile_lstring_filename(ctx, 0, SCRIPT, SCRIPT_LENGTH) != 0 || duk_pcall(ctx, 0) != 0) {
    fprintf(stderr, "the plugin's script failed to load: %s\n", duk_safe_to_string(ctx, -1));
    return NULL;
  }
  duk_pop(ctx);
  return ctx;
}

/*
 * With arguments, a test binary (`sausage test`, libtest's arguments: `--list`,
 * `<name> --exact`): `__test(args)` lists or runs the tests. Without, a plugin:
 * `__main(request)` answers the request on the first stdin line.
 */
int main(int argc, char **argv) {
  if (argc > 1) {
    duk_context *ctx = start();
    if (!ctx) return 70;
    duk_get_global_string(ctx, "__test");
    duk_push_array(ctx);
    for (int i = 1; i < argc; i++) {
      duk_push_string(ctx, argv[i]);
      duk_put_prop_index(ctx, -2, (duk_uarridx_t)(i - 1));
    }
    if (duk_pcall(ctx, 1) != 0) {
      fprintf(stderr, "uncaught: %s\n", duk_safe_to_string(ctx, -1));
      return 101;
    }
    return duk_get_int(ctx, -1);
  }
  size_t n;
  char *request = read_line(&n);
  if (!request) return 0; /* EOF: stop now */
  duk_context *ctx = start();
  if (!ctx) return 70;
  duk_get_global_string(ctx, "__main");
  duk_push_lstring(ctx, request, n);
  free(request);
  if (duk_pcall(ctx, 1) != 0) {
    fprintf(stderr, "uncaught: %s\n", duk_safe_to_string(ctx, -1));
    return 70;
  }
  int code = duk_get_int(ctx, -1);
  return code;
}
