// `factorly/sandbox-kit/source`: prepareSource, formatDiagnostic, MAX_SOURCE_CHARS.
// The kit ships inside factorly's package, so a plugin reaches it through factorly's exports.
export * from '@factorly/sandbox-kit/source';
