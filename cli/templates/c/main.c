/*
 * __PLUGIN__: a Sausage plugin in C (docs/languages.md). Every call runs this
 * program once: it reads the request (one JSON-RPC line on stdin), writes
 * one answer line on stdout, and returns. Build it with ./build.sh.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* The rpc.discover document: what `sausage methods` and MCP show of this plugin. */
static const char DOCUMENT[] =
    "{\"openrpc\":\"1.2.6\",\"info\":{\"title\":\"__PLUGIN__\",\"version\":\"0.1.0\"},"
    "\"methods\":[{\"name\":\"greet\",\"summary\":\"Greet someone by name; counts the greetings.\","
    "\"paramStructure\":\"by-name\",\"params\":[{\"name\":\"name\",\"required\":false,"
    "\"description\":\"Who to greet (default: world).\",\"schema\":{\"type\":\"string\"}}],"
    "\"result\":{\"name\":\"greeting\",\"schema\":{\"type\":\"string\"}}}]}";

static char line[1 << 20];

/* Copies the string value of "key" in the request into out; 0 when absent. No escapes:
 * enough for ids (the pid), method names and plain values. Use a JSON library for more. */
static int field(const char *key, char *out, size_t size) {
  char pattern[80];
  snprintf(pattern, sizeof pattern, "\"%s\":\"", key);
  const char *at = strstr(line, pattern);
  if (!at) return 0;
  at += strlen(pattern);
  size_t n = 0;
  while (at[n] && at[n] != '"' && at[n] != '\\' && n + 1 < size) n++;
  memcpy(out, at, n);
  out[n] = 0;
  return 1;
}

/* Adds one to the count in /state/__PLUGIN__/greetings (the world's state folder) and returns it. */
static long count_greeting(void) {
  long count = 0;
  mkdir("/state/__PLUGIN__", 0755);
  FILE *f = fopen("/state/__PLUGIN__/greetings", "r");
  if (f) {
    if (fscanf(f, "%ld", &count) != 1) count = 0;
    fclose(f);
  }
  f = fopen("/state/__PLUGIN__/greetings", "w");
  if (f) {
    fprintf(f, "%ld\n", ++count);
    fclose(f);
  }
  return count;
}

int main(void) {
  if (!fgets(line, sizeof line, stdin)) return 0; /* EOF: stop now */
  char id[256], method[256], name[256];
  if (!field("id", id, sizeof id) || !field("method", method, sizeof method)) return 2;
  /* Start the answer on a fresh line (PROTOCOL 4.1). */
  if (strcmp(method, "rpc.discover") == 0) {
    printf("\n{\"jsonrpc\":\"2.0\",\"id\":\"%s\",\"result\":%s}\n", id, DOCUMENT);
  } else if (strcmp(method, "greet") == 0) {
    if (!field("name", name, sizeof name)) strcpy(name, "world");
    long count = count_greeting();
    /* A stderr line goes to the journal. */
    fprintf(stderr, "greeting %ld\n", count);
    printf("\n{\"jsonrpc\":\"2.0\",\"id\":\"%s\",\"result\":\"Hello, %s!\"}\n", id, name);
  } else {
    printf("\n{\"jsonrpc\":\"2.0\",\"id\":\"%s\",\"error\":{\"code\":-32601,"
           "\"message\":\"__PLUGIN__ has no method %s\"}}\n", id, method);
  }
  return 0;
}
