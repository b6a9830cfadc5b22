// The SSRF guard shared by factorly.fetch and rest tools. Named exports only.
export { addressProblem, isAllowed, urlProblem } from './url-guard.js';
export { guardedLookup } from './lookup.js';
export { bindProblem, isLoopback, servedHosts } from './served-hosts.js';
