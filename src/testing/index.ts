// factorly/testing: what a plugin's tests need, in a project outside factorly's repository. Each
// contract suite takes the test runner's `describe`/`it` (vitest or node:test) and asserts with
// node:assert, so it runs under either.
export { inline, officialPlugins, startTestKernel } from './kernel.js';
export type { TestKernel, TestKernelOptions } from './kernel.js';
// The kernel a test kernel runs, to type helpers that take one.
export type { Kernel } from '../kernel/kernel.js';
export { afterSuite, eventually, like, within } from './suite.js';
export { toolDefinition } from './tool-definition.js';
export type { TestApi } from './suite.js';
export { completed, eventLogContract, requested } from './contracts/event-log.js';
export type { LogFactory } from './contracts/event-log.js';
export { batchStreamContract } from './contracts/batch-stream.js';
export type { BatchStreamFactory } from './contracts/batch-stream.js';
export { sandboxEngineContract } from './contracts/sandbox-engine.js';
export type { SandboxEngineSubject } from './contracts/sandbox-engine.js';
export { toolProviderContract } from './contracts/tool-provider.js';
export type { ToolProviderSubject } from './contracts/tool-provider.js';
export { shadowRuleContract } from './contracts/shadow-rule.js';
export type { ShadowRuleCase, ShadowRuleSubject } from './contracts/shadow-rule.js';
export { confirmChannelContract } from './contracts/confirm-channel.js';
export type { ConfirmChannelSubject } from './contracts/confirm-channel.js';
export { personChannelContract } from './contracts/person-channel.js';
export type { PersonChannelSubject, PersonReply } from './contracts/person-channel.js';
export { secretBackendContract } from './contracts/secret-backend.js';
export type { SecretBackendSubject } from './contracts/secret-backend.js';
export { interfaceContract } from './contracts/interface.js';
export type { InterfaceSubject } from './contracts/interface.js';
export { outputProcessorContract } from './contracts/output-processor.js';
export type { OutputProcessorSubject } from './contracts/output-processor.js';
