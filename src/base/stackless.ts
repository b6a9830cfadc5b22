/**
 * `make()`, with no stack captured while it runs: for an error that is handed on as a value (an
 * abort reason) and never thrown from where it was made, so its stack would say nothing, and
 * capturing one costs more than everything else done with it.
 */
export function stackless<E extends Error>(make: () => E): E {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return make();
  } finally {
    Error.stackTraceLimit = limit;
  }
}
