import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO, runCli, tempProject } from '../../../test/helpers/project.js';

const FIXTURE = join(REPO, 'test', 'fixtures', 'plugins', 'tiny-engine');
const BUSY =
  'async function run() { const end = Date.now() + 3000; let i = 0; while (Date.now() < end) i++; return "finished" }';

describe('a third-party script engine', () => {
  it('is linked as a plugin and selected with engine: <name>, with its own budget', () => {
    const yaml = `tools:\n  small:\n    type: code\n    engine: tiny\n    code: 'async function run(p) { return "tiny says " + p.word }'\n    parameters: [{name: word}]\n  busy_tiny:\n    type: code\n    engine: tiny\n    code: '${BUSY}'\n  busy_quickjs:\n    type: code\n    engine: quickjs\n    code: '${BUSY}'\n`;
    const root = tempProject({ '.factorly/factorly.yaml': yaml });
    expect(runCli(['plugins', 'link', '--no-install', FIXTURE], root).status).toBe(0);
    expect(runCli(['call', 'small', '--word', 'hi'], root)).toMatchObject({ status: 0, stdout: 'tiny says hi' });
    expect(runCli(['call', 'busy_tiny'], root)).toMatchObject({ status: 2, stderr: 'timed out after 1000 ms\n' });
    expect(runCli(['call', 'busy_quickjs'], root)).toMatchObject({ status: 0, stdout: 'finished' });
  });

  it('is refused by name when it is not installed', () => {
    const root = tempProject({
      '.factorly/factorly.yaml': `tools:\n  small:\n    type: code\n    engine: tiny\n    code: 'async function run() {}'\n`,
    });
    expect(runCli(['call', 'small'], root)).toMatchObject({
      status: 1,
      stderr:
        'Error: config: tool "small" engine "tiny" is not installed; installed engines: quickjs, ses (.factorly/factorly.yaml:2)\n',
    });
  });
});
