// The SSRF guard shared by factorly.fetch and rest tools. Named exports only.
export { addressProblem, alwaysRefusedProblem, alwaysRefusedUrlProblem, isAllowed, urlProblem } from './url-guard.js';
export { guardedLookup, guardLookup, type GuardedLookup, type Resolver } from './lookup.js';
export { bindProblem, isLoopback, servedHosts } from './served-hosts.js';
export { DEFAULT_BODY_CAP, guardedGet, type GuardedAnswer, type GuardedGetOptions } from './guarded-get.js';
