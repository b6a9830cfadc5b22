// The public API of the code provider (`@factorly/plugin-provider-code/api`). Constants only.

/** The built-in agents run ad-hoc scripts through (`code mode` builds on it; its runs can be promoted to tools). */
export const CODE_TOOL = 'factorly.code';
