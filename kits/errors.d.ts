// `factorly/errors`: the error family: FactorlyError, its codes (exit and JSON-RPC code of each), the JSON-RPC errors.
// The kit ships inside factorly's package, so a plugin reaches it through factorly's exports.
export * from '@factorly/error-kit';
