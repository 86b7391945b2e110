// deno-lint-ignore-file -- ES5 for Duktape: var, no arrow functions, prototypes by hand
// The runtime of TypeScript plugins (ES5, run by Duktape: core/typescript/README.md).
// `__modules` (the plugin's files, as CommonJS) and `__document` (its rpc.discover
// document) come before it in the bundle; `__main(line)` is called with the request.
var __sdk = (function () {
  /** A JSON-RPC error: thrown by a method, it is the call's error answer. */
  function RpcError(code, message, data) {
    this.name = "RpcError";
    this.code = code;
    this.message = message;
    this.data = data;
    this.stack = new Error(message).stack;
  }
  RpcError.prototype = Object.create(Error.prototype);
  RpcError.prototype.constructor = RpcError;

  var nextId = 0;
  var notes = [];

  /** Calls `method` ("plugin.method" or "core.method") and waits for its answer. */
  function call(method, params) {
    var id = "ts-" + (++nextId);
    __out(JSON.stringify({ jsonrpc: "2.0", id: id, method: method, params: params || {} }));
    for (;;) {
      var line = __in();
      if (line === undefined) {
        throw new RpcError(-32002, "stdin ended while " + method + " was called");
      }
      var msg;
      try {
        msg = JSON.parse(line);
      } catch (e) {
        continue;
      }
      if (msg && msg.id === id && msg.method === undefined) {
        if (msg.error) throw new RpcError(msg.error.code, msg.error.message, msg.error.data);
        return msg.result;
      }
      if (msg && msg.method !== undefined && msg.id === undefined) notes.push(msg);
    }
  }

  /** Sends a notification (no answer): `core.notify`, a detached `core.call`. */
  function notify(method, params) {
    __out(JSON.stringify({ jsonrpc: "2.0", method: method, params: params || {} }));
  }

  /** A structured log event (PROTOCOL 8): the journal keeps its level and fields. */
  function log(level, message, fields) {
    var event = { level: level, message: String(message) };
    if (fields !== undefined) event.fields = fields;
    __err("\x1e" + JSON.stringify(event));
  }

  /** Files of the world (paths as a process sees them: /state/<plugin>/..., /proc/...). */
  var fs = {
    readText: function (path) {
      var text = __readFile(path);
      if (text === null) throw new Error("cannot read " + path + ": " + __errno());
      return text;
    },
    readTextOr: function (path, fallback) {
      var text = __readFile(path);
      return text === null ? fallback : text;
    },
    writeText: function (path, text) {
      if (!__writeFile(path, String(text))) {
        throw new Error("cannot write " + path + ": " + __errno());
      }
    },
    mkdir: function (path) {
      var parts = path.split("/");
      var at = "";
      for (var i = 1; i < parts.length; i++) {
        at += "/" + parts[i];
        if (!__mkdir(at)) throw new Error("cannot make " + at + ": " + __errno());
      }
    },
  };

  /** The folder of this plugin's state: /state/<plugin>. */
  function stateDir() {
    var dir = "/state/" + __env("SAUSAGE_PLUGIN");
    fs.mkdir(dir);
    return dir;
  }

  var TYPES = {
    string: function (v) {
      return typeof v === "string";
    },
    number: function (v) {
      return typeof v === "number";
    },
    integer: function (v) {
      return typeof v === "number" && Math.floor(v) === v;
    },
    boolean: function (v) {
      return typeof v === "boolean";
    },
    object: function (v) {
      return v !== null && typeof v === "object" && !(v instanceof Array);
    },
    array: function (v) {
      return v instanceof Array;
    },
    "null": function (v) {
      return v === null;
    },
  };

  /** The first problem of `params` against the method's declared params, or null. */
  function paramsProblem(method, params) {
    for (var i = 0; i < method.params.length; i++) {
      var p = method.params[i];
      var v = params[p.name];
      if (v === undefined) {
        if (p.required) return 'missing param "' + p.name + '"';
        continue;
      }
      var type = p.schema && p.schema.type;
      var types = type instanceof Array ? type : type ? [type] : [];
      if (types.length === 0) continue;
      var ok = false;
      for (var j = 0; j < types.length; j++) if (TYPES[types[j]] && TYPES[types[j]](v)) ok = true;
      if (!ok) return 'param "' + p.name + '" must be ' + types.join(" or ");
    }
    return null;
  }

  function answer(id, body) {
    body.jsonrpc = "2.0";
    body.id = id;
    __out(JSON.stringify(body));
  }

  /** Runs the request: rpc.discover, or a method of the plugin's main file. */
  function main(line) {
    var req;
    try {
      req = JSON.parse(line);
    } catch (e) {
      return 2;
    }
    var id = req.id;
    if (req.method === "rpc.discover") {
      answer(id, { result: __document });
      return 0;
    }
    var declared = null;
    for (var i = 0; i < __document.methods.length; i++) {
      if (__document.methods[i].name === req.method) declared = __document.methods[i];
    }
    var exported = __require("./plugin");
    if (!declared || typeof exported[req.method] !== "function") {
      answer(id, {
        error: { code: -32601, message: __env("SAUSAGE_PLUGIN") + " has no method " + req.method },
      });
      return 0;
    }
    var params = req.params || {};
    var problem = paramsProblem(declared, params);
    if (problem) {
      answer(id, { error: { code: -32602, message: req.method + ": " + problem } });
      return 0;
    }
    var result;
    try {
      result = exported[req.method](params);
    } catch (e) {
      if (e instanceof RpcError) {
        var error = { code: e.code, message: e.message };
        if (e.data !== undefined) error.data = e.data;
        answer(id, { error: error });
      } else {
        __err(String(e && e.stack || e));
        answer(id, { error: { code: -32603, message: String(e && e.message || e) } });
      }
      return 0;
    }
    answer(id, { result: result === undefined ? null : result });
    return 0;
  }

  /** Throws when `condition` is falsy (a failed test). */
  function assert(condition, message) {
    if (!condition) throw new Error(message || "assertion failed");
  }

  /** Throws when `actual` and `expected` differ as JSON (a failed test). */
  function assertEquals(actual, expected, message) {
    var a = JSON.stringify(actual);
    var b = JSON.stringify(expected);
    if (a !== b) {
      throw new Error((message ? message + ": " : "") + "expected " + b + ", got " + a);
    }
  }

  /** Each test: an exported function of a `*_test` module, named `<module>::<function>`. */
  function tests() {
    var out = [];
    for (var key in __modules) {
      if (!/_test$/.test(key)) continue;
      var exported = __require("./" + key);
      for (var name in exported) {
        if (typeof exported[name] === "function") {
          out.push({ name: key + "::" + name, run: exported[name] });
        }
      }
    }
    return out;
  }

  /**
   * A test binary's entry, with libtest's arguments (what `sausage test`
   * passes: `--list`, `--ignored`, `<name> --exact`, `--include-ignored`).
   */
  function test(args) {
    var all = tests();
    var list = false;
    var ignored = false;
    var name = null;
    for (var i = 0; i < args.length; i++) {
      if (args[i] === "--list") list = true;
      else if (args[i] === "--ignored") ignored = true;
      else if (args[i] === "--format" || args[i] === "--skip") i++;
      else if (args[i].charAt(0) !== "-") name = args[i];
    }
    if (list) {
      if (!ignored) { for (var j = 0; j < all.length; j++) __out(all[j].name + ": test"); }
      return 0;
    }
    for (var k = 0; k < all.length; k++) {
      if (all[k].name !== name) continue;
      try {
        all[k].run();
      } catch (e) {
        __err("test " + name + " failed: " + String(e && e.message || e));
        if (e && e.stack) __err(String(e.stack));
        return 101;
      }
      return 0;
    }
    __err("no test " + name);
    return 101;
  }

  return {
    assert: assert,
    assertEquals: assertEquals,
    test: test,
    RpcError: RpcError,
    call: call,
    notify: notify,
    log: log,
    fs: fs,
    stateDir: stateDir,
    notifications: notes,
    main: main,
  };
})();

/** Marks a test binary for `sausage test` (libtest's flags: --list, --exact, --include-ignored). */
var __harness = "--include-ignored";

var __cache = {};
/** The plugin's CommonJS modules by path ("./plugin", "./clients/notes"), and "sausage". */
function __require(name) {
  if (name === "sausage") return __sdk;
  var key = name.replace(/\.ts$/, "").replace(/^\.\//, "");
  if (__cache[key]) return __cache[key].exports;
  var factory = __modules[key];
  if (!factory) throw new Error("no module " + name + " in the plugin");
  var module = { exports: {} };
  __cache[key] = module;
  factory(module.exports, __require, module);
  return module.exports;
}

function __main(line) {
  return __sdk.main(line);
}

function __test(args) {
  return __sdk.test(args);
}
