/**
 * The guest-side SDK, evaluated inside the sandbox before the user's script, identical on every
 * engine. It evaluates to an installer `(bridge, maxLogBytes, global) → driver`:
 * - `bridge(fn, argsJson) → Promise<resultJson>` is the engine's one native function;
 * - it defines `factorly`, `tools` and `console` on the guest's global;
 * - `driver.execute(run, paramsJson)` calls the script and resolves to the outcome as JSON text,
 *   `{ok, value | message, logs}`, so only strings ever cross the boundary.
 *
 * Plain ES2020 without classes so it parses on every engine; everything it hands out is frozen.
 */
/**
 * Built-ins that shrink, grow or detach a buffer under a running native method. QuickJS's typed
 * array and ArrayBuffer built-ins capture a length, call back into the script (a `valueOf`, a
 * comparator, a species constructor) and then copy with that stale length, so a script that
 * resizes the buffer in the callback reads other objects' heap bytes (e.g. `ta.with(0, {valueOf()
 * { ab.resize(16) }})`). Without these methods no buffer ever changes size or detaches, which
 * closes that whole class. The prelude removes them (SES: `removeBufferResizers` before lockdown,
 * after which SES's own stand-ins only throw) and refuses to run where a buffer still resizes.
 */
export const BUFFER_RESIZERS: readonly (readonly [string, readonly string[]])[] = [
  ['ArrayBuffer', ['resize', 'transfer', 'transferToFixedLength']],
  ['SharedArrayBuffer', ['grow']],
];

export const GUEST_PRELUDE = String.raw`(function install(bridge, maxLogBytes, g) {
  'use strict';
  var freeze = typeof harden === 'function' ? harden : Object.freeze;
  var logs = [];
  var logBytes = 0;
  var dropped = 0;
  function show(value) {
    if (typeof value === 'string') return value;
    if (value instanceof Error) return String(value);
    try { var text = JSON.stringify(value); return text === undefined ? String(value) : text; } catch (e) { return String(value); }
  }
  function writer(prefix) {
    return function () {
      var parts = [];
      for (var i = 0; i < arguments.length; i += 1) parts.push(show(arguments[i]));
      var line = prefix + parts.join(' ');
      if (logBytes + line.length > maxLogBytes) { dropped += 1; return; }
      logBytes += line.length + 1;
      logs.push(line);
    };
  }
  function hostCall(fn, args) {
    return bridge(fn, JSON.stringify(args === undefined ? null : args)).then(function (text) { return JSON.parse(text); });
  }
  function toResult(r) {
    return freeze({
      output: r.output, error: r.error, exitCode: r.exitCode, durationMs: r.durationMs,
      isError: function () { return r.exitCode !== 0 || !!r.error; },
    });
  }
  var factorly = freeze({
    call: function (name, params) { return hostCall('call', { name: name, params: params === undefined ? {} : params }).then(toResult); },
    listTools: function () { return hostCall('listTools', null); },
  });
  function invoke(path, args) {
    var joined = path.join('.');
    if (joined === 'search') return hostCall('search', args === undefined ? {} : args);
    if (joined === 'search.describe') return hostCall('describe', args === undefined ? {} : args);
    if (path.length === 0) return Promise.reject(new TypeError('tools is not a function; call tools.<namespace>.<tool>(args)'));
    return hostCall('tool', { path: joined, args: args === undefined ? {} : args });
  }
  function node(path) {
    var target = function () {};
    return new Proxy(target, {
      get: function (_t, key) {
        if (typeof key !== 'string' || key === 'then') return undefined;
        return node(path.concat([key]));
      },
      apply: function (_t, _this, args) { return invoke(path, args[0]); },
      ownKeys: function () { throw new TypeError('tools cannot be listed; use tools.search({ query }) to find tools'); },
      has: function () { return true; },
      set: function () { return false; },
      defineProperty: function () { return false; },
      deleteProperty: function () { return false; },
      setPrototypeOf: function () { return false; },
    });
  }
  function message(error) {
    if (error instanceof Error) return error.name && error.name !== 'Error' ? error.name + ': ' + error.message : error.message;
    return show(error);
  }
  function finish(payload, valueJson) {
    payload.logs = dropped > 0 ? logs.concat(['… ' + dropped + ' more console lines dropped (over ' + maxLogBytes + ' bytes)']) : logs;
    var text = JSON.stringify(payload);
    return valueJson === undefined ? text : text.slice(0, -1) + ',"value":' + valueJson + '}';
  }
  // No buffer may change size or detach (see BUFFER_RESIZERS): removed where the engine lets us,
  // and then tried: a buffer that still resizes, grows or detaches means no run at all.
  ${JSON.stringify(BUFFER_RESIZERS)}.forEach(function (entry) {
    var ctor = g[entry[0]];
    if (typeof ctor !== 'function') return;
    entry[1].forEach(function (name) { try { delete ctor.prototype[name]; } catch (e) { /* frozen: tried below */ } });
    var buffer = new ctor(8, { maxByteLength: 16 });
    entry[1].forEach(function (name) { try { buffer[name](16); } catch (e) { /* refused, as it must be */ } });
    if (buffer.byteLength !== 8) throw new Error('sandbox containment: ' + entry[0] + ' buffers can still change size or detach');
  });
  // One language surface on every engine: drop globals only one of them has (SES: Compartment,
  // lockdown, harden, TextEncoder/Decoder; QuickJS: WeakRef, FinalizationRegistry, SharedArrayBuffer, Float16Array, Iterator).
  ['Compartment', 'lockdown', 'harden', 'TextEncoder', 'TextDecoder', 'WeakRef', 'FinalizationRegistry', 'SharedArrayBuffer', 'Float16Array', 'Iterator'].forEach(function (name) {
    try { delete g[name]; } catch (e) { /* not configurable: left as is */ }
  });
  g.console = freeze({ log: writer(''), info: writer(''), debug: writer('debug: '), warn: writer('warn: '), error: writer('error: ') });
  g.factorly = factorly;
  g.tools = node([]);
  return freeze({
    execute: function (run, paramsJson) {
      if (typeof run !== 'function') return Promise.resolve(finish({ ok: false, message: 'the script must declare async function run(params)' }));
      var started;
      try { started = Promise.resolve(run(JSON.parse(paramsJson))); } catch (e) { started = Promise.reject(e); }
      return started.then(function (value) {
        var json;
        try { json = JSON.stringify(value === undefined ? null : value); } catch (e) {
          return finish({ ok: false, message: 'run() returned a value that cannot be converted to JSON: ' + message(e) });
        }
        return finish({ ok: true }, json === undefined ? 'null' : json);
      }, function (error) { return finish({ ok: false, message: message(error) }); });
    },
  });
})`;

/** Appended to the user's script so that its completion value is the `run` it declared. */
export const RUN_EPILOGUE = '\n;typeof run === "function" ? run : undefined';
