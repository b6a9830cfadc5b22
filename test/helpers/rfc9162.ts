// The suite's independent RFC 9162 verifier, shared with the repository's own tests.
export * from '../../src/testing/rfc9162.js';
