import { plugin as shadowPlugin } from '@factorly/plugin-shadow';
import { ShadowTokens, type ShadowPolicies } from '@factorly/plugin-shadow/api';
import { startTestKernel } from 'factorly/testing';

/** The policies the shadow plugin provides, as an MCP interface gets them when it is installed. */
export async function shadowPolicies(): Promise<ShadowPolicies> {
  const { kernel } = await startTestKernel('tools: {}\n', [shadowPlugin]);
  const policies = kernel.provided(ShadowTokens.Policies)!;
  await kernel.stop();
  return policies;
}
