// factorly/testing: what a plugin's tests need, in a project outside factorly's repository. Usable
// from vitest and from node:test (`describe`/`it` come from the runner you pass in).
export { inline, officialPlugins, startTestKernel } from './kernel.js';
export type { TestKernel, TestKernelOptions } from './kernel.js';
