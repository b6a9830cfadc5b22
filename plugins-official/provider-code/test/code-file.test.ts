import { createHash } from 'node:crypto';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { definePlugin, type CallGateway, type CatalogChange } from 'factorly';
import { eventually } from 'factorly/testing';
import { tempProject } from '../../../test/helpers/project.js';
import { callTool, startCodeKernel } from './code-kernel.js';

const sha = (text: string) => createHash('sha256').update(text).digest('hex');
const script = (word: string) => `async function run(p) {\n  return "${word} " + p.who;\n}\n`;

const REPORT = `tools:
  report:
    type: code
    code_file: scripts/report.js
    parameters: [{name: who, default: world}]
`;

/** The gateway plugins get, to watch the catalogue as an interface does. */
const held: { gateway?: CallGateway } = {};
const grab = definePlugin({
  id: 'grab-gateway',
  apiVersion: '1',
  register(registrar) {
    registrar.registerInit({
      deps: { gateway: registrar.tokens.CallGateway },
      init: ({ gateway }) => void (held.gateway = gateway),
    });
  },
});

/** A project whose main config is `factorly.yaml` at its root (files relative to it), and a kernel over it. */
async function project(config: string, files: Record<string, string> = {}) {
  const root = tempProject({ 'factorly.yaml': config, ...files });
  return { root, ...(await startCodeKernel('tools: {}\n', [grab], root)) };
}

describe('code tools from files (code_file)', () => {
  it('runs the file, records its digest and text as it ran, and follows the file while serving', async () => {
    const { root, kernel, log } = await project(REPORT, { 'scripts/report.js': script('hello') });
    expect(await callTool(kernel, 'report')).toMatchObject({ status: 'success', output: 'hello world' });
    const changes: CatalogChange[] = [];
    const unwatch = held.gateway!.watchTools((change) => void changes.push(change));
    writeFileSync(join(root, 'scripts', 'report.js'), script('bye'));
    await eventually(() => expect(changes).toContainEqual({ changed: true }), 10_000);
    unwatch();
    expect(await callTool(kernel, 'report', { who: 'Ada' })).toMatchObject({ status: 'success', output: 'bye Ada' });
    const events = [];
    for await (const event of log.read()) events.push(event);
    const requested = events.filter((e) => e.type === 'call.requested').map((e) => e.data.sourceSha);
    expect(requested).toEqual([sha(script('hello')), sha(script('bye'))]);
    const sources = events.filter((e) => e.type === 'source.recorded').map((e) => e.data.source);
    expect(sources).toEqual([script('hello'), script('bye')]);
  });

  it('refuses a file outside the project, by .. or by a symlink, naming the file and the tool', async () => {
    const outside = join(tmpdir(), `factorly-outside-${process.pid}.js`);
    writeFileSync(outside, script('stolen'));
    const root = tempProject({ 'scripts/real.js': script('ok') });
    mkdirSync(join(root, 'scripts'), { recursive: true });
    symlinkSync(outside, join(root, 'scripts', 'link.js'));
    writeFileSync(
      join(root, 'factorly.yaml'),
      `tools:
  up:
    type: code
    code_file: ../x.js
  linked:
    type: code
    code_file: scripts/link.js
  absolute:
    type: code
    code_file: ${outside}
  missing:
    type: code
    code_file: scripts/none.js
  both:
    type: code
    code: "async function run() {}"
    code_file: scripts/real.js
  folder:
    type: code
    code_file: scripts
`,
    );
    await expect(startCodeKernel('tools: {}\n', [], root)).rejects.toThrow(
      [
        `config: tool "up" has code_file "../x.js", which leaves the project folder (${root}) (factorly.yaml:4)`,
        `config: tool "linked" has code_file "scripts/link.js", which is a symlink to ${outside}, outside the project folder (factorly.yaml:7)`,
        `config: tool "absolute" has code_file ${JSON.stringify(outside)}, which is not relative to the config file's folder (factorly.yaml:10)`,
        'config: tool "missing" has code_file "scripts/none.js", which does not exist (factorly.yaml:13)',
        'config: tool "both" has both "code" and "code_file": keep one (factorly.yaml:17)',
        'config: tool "folder" has code_file "scripts", which is not a file (factorly.yaml:20)',
      ].join('\n'),
    );
  });

  it('resolves a file against the folder of the config file that names it, inside the project', async () => {
    const root = tempProject({
      '.factorly/tools/report.yaml':
        'report:\n  type: code\n  code_file: ../../scripts/report.js\n  parameters: [{name: who}]\n',
      'scripts/report.js': script('from tools/'),
    });
    const { kernel } = await startCodeKernel('tools: {}\n', [], root);
    expect(await callTool(kernel, 'report', { who: 'x' })).toMatchObject({ output: 'from tools/ x' });
    expect(kernel.config.included).toEqual([join(root, 'scripts', 'report.js')]);
  });
});
