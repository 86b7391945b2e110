/*
 * undocumented: a plugin in plain C with no rpc.discover document. It reads
 * the request (one JSON line on stdin), answers rpc.discover with -32601 (or,
 * built with -DDISCOVER_EXITS, ends with exit status 0 without answering it;
 * with -DDISCOVER_TRAPS, traps), and answers every other method with the
 * request line it got, as a string, after counting the call in
 * /state/undocumented/calls.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char line[1 << 20];

/* Copies the string value of "key" in the request into out (no escapes: ids and method names). */
static int field(const char *key, char *out, size_t size) {
  char pattern[64];
  snprintf(pattern, sizeof pattern, "\"%s\":\"", key);
  const char *at = strstr(line, pattern);
  if (!at) return 0;
  at += strlen(pattern);
  size_t n = 0;
  while (at[n] && at[n] != '"' && n + 1 < size) n++;
  memcpy(out, at, n);
  out[n] = 0;
  return 1;
}

int main(void) {
  if (!fgets(line, sizeof line, stdin)) return 0;
  line[strcspn(line, "\n")] = 0;
  char id[256], method[256];
  if (!field("id", id, sizeof id) || !field("method", method, sizeof method)) return 2;
  if (strcmp(method, "rpc.discover") == 0) {
#if defined(DISCOVER_EXITS)
    return 0;
#elif defined(DISCOVER_TRAPS)
    __builtin_trap();
#else
    printf("{\"jsonrpc\":\"2.0\",\"id\":\"%s\",\"error\":{\"code\":-32601,\"message\":\"no document\"}}\n", id);
    return 0;
#endif
  }
  mkdir("/state/undocumented", 0755);
  long calls = 0;
  FILE *f = fopen("/state/undocumented/calls", "r");
  if (f) {
    if (fscanf(f, "%ld", &calls) != 1) calls = 0;
    fclose(f);
  }
  f = fopen("/state/undocumented/calls", "w");
  if (f) {
    fprintf(f, "%ld\n", calls + 1);
    fclose(f);
  }
  /* The request line as a JSON string: escape quotes and backslashes. */
  printf("{\"jsonrpc\":\"2.0\",\"id\":\"%s\",\"result\":{\"calls\":%ld,\"request\":\"", id, calls + 1);
  for (const char *c = line; *c; c++) {
    if (*c == '"' || *c == '\\') putchar('\\');
    putchar(*c);
  }
  printf("\"}}\n");
  return 0;
}
