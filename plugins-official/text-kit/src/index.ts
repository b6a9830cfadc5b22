export { truncateUtf8, utf8BoundaryAfter, utf8BoundaryBefore } from './utf8.js';
export { printableLine, printableText, writeStderrLine } from './printable.js';
export { globMatcher, matchesAnyGlob } from './glob.js';
export { readTimeBound, TIME_BOUND_FORMS, type TimeBound } from './time-bound.js';
export { unifiedDiff } from './diff.js';
export { canonicalJson, withSecretReferences } from './json.js';
export {
  parameterFromSchema,
  parametersFromSchema,
  type SchemaParameter,
  type SchemaParamType,
} from './schema-params.js';
