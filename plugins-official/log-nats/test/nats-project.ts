import { inject } from 'vitest';
import { tempProject } from '../../../test/helpers/project.js';
import { freshStream } from './open-nats.js';

/** The `log:` block of a project on the shared test cluster's `stream`. */
export function natsLogBlock(stream: string, servers: readonly string[] = inject('natsServers'), extra = ''): string {
  return `log:\n  engine: nats\n  servers: [${servers.join(', ')}]\n  stream: ${stream}\n  replicas: 3\n  timeout: 3000\n${extra}`;
}

export const ECHO = (name: string, rate = '100/min'): string =>
  `  ${name}:\n    type: cli\n    command: echo\n    args: ["{{text}}"]\n    parameters: [{name: text, required: true}]\n    shadow: {rate_limit: ${rate}, scope: tool}\n`;

/** A project whose log is `stream` (a fresh one by default) on the shared cluster, with the given tools. */
export function natsProject(
  tools: string,
  stream = freshStream('p'),
  servers?: readonly string[],
): { root: string; stream: string } {
  return {
    root: tempProject({ '.factorly/factorly.yaml': `${natsLogBlock(stream, servers)}tools:\n${tools}` }),
    stream,
  };
}
