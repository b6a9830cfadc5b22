// `factorly/sandbox-kit/supervisor`: ProcessEngine, ProcessPool, childEntry, dependencyVersion (the factorly process).
// The kit ships inside factorly's package, so a plugin reaches it through factorly's exports.
export * from '@factorly/sandbox-kit/supervisor';
