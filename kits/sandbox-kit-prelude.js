// `factorly/sandbox-kit/prelude`: GUEST_PRELUDE, RUN_EPILOGUE, BUFFER_RESIZERS.
// The kit ships inside factorly's package, so a plugin reaches it through factorly's exports.
export * from '@factorly/sandbox-kit/prelude';
