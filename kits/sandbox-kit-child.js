// `factorly/sandbox-kit/child`: serveRuns, GUEST_PRELUDE, removeBufferResizers (the engine's child process).
// The kit ships inside factorly's package, so a plugin reaches it through factorly's exports.
export * from '@factorly/sandbox-kit/child';
