import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Kernel } from '../../src/kernel/kernel.js';
import { editableTool, planToolEdit, saveToolEdit, type ParameterEdit } from '../../src/editing/tool-edit.js';
import type { PluginDefinition } from '../../src/plugins/define-plugin.js';
import { plugin as builtins } from '@factorly/plugin-builtins';
import { plugin as quickjs } from '@factorly/plugin-engine-quickjs';
import { plugin as code } from '@factorly/plugin-provider-code';
import { plugin as shadow } from '@factorly/plugin-shadow';
import { eventsOf, startTestKernel } from '../helpers/kernel.js';
import { tempProject } from '../helpers/project.js';

const started: Kernel[] = [];
afterEach(async () => {
  for (const kernel of started.splice(0)) await kernel.stop();
});

/** A tool a plugin contributes: no config entry of its own. */
const contributed: PluginDefinition = {
  id: 'contributes',
  apiVersion: '1',
  register(registrar) {
    registrar.registerInit({
      deps: { sources: registrar.tokens.ToolSources },
      init({ sources }, context) {
        sources.add(
          {
            name: 'contributed',
            tools: () => [
              {
                name: 'extra.tool',
                type: 'cli',
                description: '',
                hidden: false,
                parameters: [],
                spec: { command: 'true' },
                source: { file: 'plugin contributes', line: 0 },
              },
            ],
          },
          context.pluginId,
        );
      },
    });
  },
};

async function kernelWith(files: Record<string, string>) {
  const root = tempProject(Object.fromEntries(Object.entries(files).filter(([path]) => path !== 'main')));
  const { kernel, log } = await startTestKernel(files.main, [quickjs, code, builtins, shadow, contributed], root);
  started.push(kernel);
  return { kernel, log, root, read: (file = '.factorly/factorly.yaml') => readFileSync(join(root, file), 'utf8') };
}

const param = (name: string, changes: Partial<ParameterEdit> = {}): ParameterEdit => ({
  name,
  type: 'string',
  required: false,
  default: '',
  description: '',
  ...changes,
});

const MAIN = `# The project's tools.
tools:
  # Deploys one environment.
  deploy:
    type: cli # runs in a shell-less exec
    description: Deploy
    command: echo
    args: ["deploying", "{{env}}"]
    parameters:
      - name: env # which one
        required: true
        pattern: "^(staging|prod)$"
      - name: dry
        type: boolean
    shadow: {confirm: true}
  say:
    type: cli
    command: echo
    args: ["{{text}}"]
`;

describe('editing a tool in its YAML file', () => {
  it('changes only what was edited and keeps comments, order, quoting and flow style', async () => {
    const { kernel, log, read } = await kernelWith({ main: MAIN });
    const plan = await saveToolEdit(kernel, 'deploy', {
      description: 'Deploy one environment',
      parameters: [
        param('env', { required: true, description: 'staging or prod' }),
        param('dry', { type: 'boolean', default: 'yes' }),
      ],
      shadow: '{confirm: true}',
    });
    expect(plan).toMatchObject({
      problems: [],
      changed: ['description', 'parameters.env.description', 'parameters.dry.default'],
      file: '.factorly/factorly.yaml',
    });
    expect(read()).toBe(
      MAIN.replace('description: Deploy\n', 'description: Deploy one environment\n')
        .replace(
          '        pattern: "^(staging|prod)$"\n',
          '        pattern: "^(staging|prod)$"\n        description: staging or prod\n',
        )
        .replace('        type: boolean\n', '        type: boolean\n        default: true\n'),
    );
    // Served at once, and recorded.
    expect(kernel.registry.get('deploy')!.description).toBe('Deploy one environment');
    expect(kernel.registry.get('deploy')!.parameters.find((p) => p.name === 'dry')!.default).toBe(true);
    const edited = (await eventsOf(log)).filter((e) => e.type === 'tool.edited');
    expect(edited.map((e) => e.data)).toEqual([
      { name: 'deploy', file: '.factorly/factorly.yaml', changed: plan.changed },
    ]);
  });

  it('writes nothing for an edit that changes nothing', async () => {
    const { kernel, read } = await kernelWith({ main: MAIN });
    const plan = await saveToolEdit(kernel, 'deploy', {
      description: 'Deploy',
      parameters: [param('env', { required: true }), param('dry', { type: 'boolean' })],
      shadow: 'confirm: true',
    });
    expect(plan).toMatchObject({ problems: [], changed: [] });
    expect(read()).toBe(MAIN);
  });

  it('declares inferred parameters only when one of them is edited, and adds and removes parameters', async () => {
    const { kernel, read } = await kernelWith({ main: MAIN });
    expect((await planToolEdit(kernel, 'say', { parameters: [param('text', { required: true })] })).changed).toEqual(
      [],
    );
    await saveToolEdit(kernel, 'say', { parameters: [param('text', { required: true, description: 'What to say' })] });
    expect(read()).toContain(
      '  say:\n    type: cli\n    command: echo\n    args: ["{{text}}"]\n    parameters:\n      - name: text\n        required: true\n        description: What to say\n',
    );
    const plan = await saveToolEdit(kernel, 'deploy', {
      parameters: [
        param('env', { required: true }),
        param('dry', { type: 'boolean', remove: true }),
        param('region', { added: true, default: 'eu', description: 'Where' }),
      ],
    });
    expect(plan.changed).toEqual(['parameters.dry removed', 'parameters.region added']);
    expect(read()).toContain(
      '        pattern: "^(staging|prod)$"\n      - name: region\n        default: eu\n        description: Where\n    shadow: {confirm: true}\n',
    );
  });

  it('refuses an invalid default, shadow block or script with a clear reason and writes nothing', async () => {
    const { kernel, read } = await kernelWith({
      main: MAIN,
      '.factorly/tools/greet.yaml': 'greet:\n  type: code\n  code: |\n    async function run() { return "hi"; }\n',
    });
    const before = read();
    const greet = read('.factorly/tools/greet.yaml');
    expect(
      (await saveToolEdit(kernel, 'deploy', { parameters: [param('env', { type: 'integer', default: 'prod' })] }))
        .problems,
    ).toEqual(['parameter "env" has an invalid default: expected integer, got "prod"']);
    expect((await saveToolEdit(kernel, 'deploy', { shadow: 'rate_limit: lots' })).problems).toEqual([
      'config: tool "deploy" has an invalid shadow.rate_limit: "lots" is not <count>/<unit> (for example "10/min"; units: sec, min, hour, day) (.factorly/factorly.yaml:16)',
    ]);
    expect((await saveToolEdit(kernel, 'deploy', { shadow: 'confirm: [' })).problems[0]).toMatch(/^shadow: /);
    const broken = await saveToolEdit(kernel, 'greet', { code: 'async function run( {' });
    expect(broken.problems).toEqual([expect.stringMatching(/^script doesn't compile: .+ \(line 1, column \d+\)$/)]);
    expect(read()).toBe(before);
    expect(read('.factorly/tools/greet.yaml')).toBe(greet);
  });

  it('writes a new script as a block, keeping the file’s indent width', async () => {
    const file = '.factorly/tools/greet.yaml';
    const { kernel, read } = await kernelWith({
      main: MAIN,
      [file]: '# greeting\ngreet:\n    type: code\n    code: async function run() { return "hi"; }\n',
    });
    await saveToolEdit(kernel, 'greet', { code: 'async function run(p) {\r\n  return "hello";\r\n}\r\n' });
    expect(read(file)).toBe(
      '# greeting\ngreet:\n    type: code\n    code: |\n        async function run(p) {\n          return "hello";\n        }\n',
    );
  });

  it('keeps a script kept in a file (code_file) there: other edits save, a changed script is refused naming the file', async () => {
    const file = '.factorly/tools/greet.yaml';
    const script = 'async function run() {\n  return "hi";\n}\n';
    const { kernel, read } = await kernelWith({
      main: MAIN,
      [file]: 'greet:\n  type: code\n  code_file: greet.js\n',
      '.factorly/tools/greet.js': script,
    });
    // The edit page sends the script back as shown: unchanged, it is left where it is.
    await saveToolEdit(kernel, 'greet', { description: 'Says hi', code: script.replace(/\n/g, '\r\n') });
    expect(read(file)).toBe('greet:\n  type: code\n  description: Says hi\n  code_file: greet.js\n');
    const plan = await saveToolEdit(kernel, 'greet', { code: 'async function run() { return "yo"; }' });
    expect(plan.problems).toEqual(['the script of "greet" is kept in greet.js (code_file): edit that file']);
    expect(read('.factorly/tools/greet.js')).toBe(script);
  });

  it('edits a built-in through its overlay entry, adding one to the main file when there is none', async () => {
    const { kernel, read } = await kernelWith({ main: MAIN });
    expect(editableTool(kernel, 'factorly.code')).toMatchObject({
      kind: 'overlay',
      file: '.factorly/factorly.yaml',
      written: { shadow: '' },
    });
    expect(
      (
        await saveToolEdit(kernel, 'factorly.code', {
          shadow: 'max_calls: 5',
          timeout: '20s',
          description: 'ignored',
        } as never)
      ).changed,
    ).toEqual(['timeout', 'shadow']);
    expect(read()).toBe(`${MAIN}  factorly.code:\n    timeout: 20s\n    shadow:\n      max_calls: 5\n`);
    expect(kernel.registry.get('factorly.code')!.shadow?.max_calls).toBe(5);
    expect(editableTool(kernel, 'factorly.code').written).toEqual({
      shadow: 'max_calls: 5',
      timeout: '20s',
      maxOutput: '',
      hidden: false,
    });
  });

  it('refuses tools without an entry of their own, and unknown tools', async () => {
    const { kernel } = await kernelWith({ main: MAIN });
    expect(() => editableTool(kernel, 'extra.tool')).toThrow(
      'tool "extra.tool" has no entry of its own to edit: it comes from plugin contributes:0; edit that entry',
    );
    expect(() => editableTool(kernel, 'nope')).toThrow('tool "nope" is not configured');
  });

  it('asks for a reload when the file changed under the form', async () => {
    const { kernel, root } = await kernelWith({ main: MAIN });
    writeFileSync(join(root, '.factorly', 'factorly.yaml'), MAIN.replace(/ {2}deploy:[\s\S]*?(?= {2}say:)/, ''));
    expect((await planToolEdit(kernel, 'deploy', { description: 'x' })).problems).toEqual([
      '.factorly/factorly.yaml no longer holds an entry "deploy"; reload the page',
    ]);
  });
});
