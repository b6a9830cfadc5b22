// `factorly/sandbox-kit`: the host side of a script engine (ProcessEngine, ProcessPool, childEntry, dependencyVersion).
// The kit ships inside factorly's package, so a plugin reaches it through factorly's exports.
export * from '@factorly/sandbox-kit';
