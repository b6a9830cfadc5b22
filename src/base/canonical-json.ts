// Canonical JSON lives in @factorly/text-kit, shared with the official plugins that digest a value
// (a tool's pinned definition): one piece of code for the idea, below every layer.
export { canonicalJson } from '@factorly/text-kit';
