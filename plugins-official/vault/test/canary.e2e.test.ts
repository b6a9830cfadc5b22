import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { runCli, tempProject } from '../../../test/helpers/project.js';
import { cliEnv } from './cli-run.js';
import { leaksIn, leaksUnder } from './leaks.js';

// Prints the secret it was given (as argv[1], env TOKEN and stdin) in every encoding we scrub,
// on stdout and stderr, plus its sha256 so the test can tell the tool really received it.
const PRINTER = `
const v = process.argv[1];
if (v !== process.env.TOKEN || v !== require('fs').readFileSync(0, 'utf8')) { console.error('inputs differ'); process.exit(9); }
const b = Buffer.from(v);
const forms = [v, b.toString('base64'), b.toString('base64url'), b.toString('hex'), encodeURIComponent(v), JSON.stringify(v), JSON.stringify(JSON.stringify({ v }))];
console.log('sha256=' + require('crypto').createHash('sha256').update(v).digest('hex'));
console.log(forms.join('\\n'));
console.error(forms.join(' | '));
process.exit(Number(process.env.EXIT || 0));
`;

const CONFIG = `tools:
  leak:
    type: cli
    description: echoes its secret in many encodings
    command: node
    args: ["-e", ${JSON.stringify(PRINTER)}, "{{vault:CANARY}}"]
    stdin: "{{vault:CANARY}}"
    env: {TOKEN: "{{vault:CANARY}}", EXIT: "{{code}}"}
    parameters: [{name: code, default: "0"}]
  hydrated:
    type: cli
    command: node
    args: ["-e", "console.log(process.argv[1])", "{{token}}"]
    parameters: [{name: token, required: true, hydrate_vault_refs: true}]
`;

describe('canary: a vault secret used by CLI tools never shows up anywhere', () => {
  it('is redacted from every CLI output and absent from .factorly/ (LMDB included) and the global dir', { timeout: 180_000 }, () => {
    const secret = `cnry-${randomBytes(12).toString('base64')}/"é+ ${randomBytes(4).toString('hex')}`;
    const root = tempProject({ '.factorly/factorly.yaml': CONFIG });
    const env = cliEnv(root, { FACTORLY_VAULT_PASSWORD: randomBytes(9).toString('hex') });
    const cli = (args: string[], input?: string) => runCli(args, root, { env, input });
    expect(cli(['vault', 'set', 'CANARY'], secret).status).toBe(0);

    const outputs = [
      cli(['call', 'leak']),
      cli(['call', 'leak', '--json']),
      cli(['call', 'leak', '--code', '3']),
      cli(['call', 'leak', '--code', '3', '--json']),
      cli(['call', 'hydrated', '--token', '{{vault:CANARY}}']),
      cli(['logs', '--json']),
      cli(['logs']),
      cli(['vault', 'list']),
    ];
    const sha = createHash('sha256').update(secret).digest('hex');
    expect(outputs[0]).toMatchObject({ status: 0 });
    expect(outputs[0].stdout).toContain(`sha256=${sha}`);
    expect(outputs[0].stdout.split('\n').slice(1, 8).every((line) => line.includes('[REDACTED:CANARY]'))).toBe(true);
    expect(outputs[2]).toMatchObject({ status: 3 });
    expect(outputs[4].stdout).toBe('[REDACTED:CANARY]\n');
    expect(outputs[5].stdout).toContain('{{vault:CANARY}}');

    for (const [i, run] of outputs.entries()) expect(leaksIn(run.stdout + run.stderr, secret), `output ${i}`).toEqual([]);
    expect(leaksUnder(root, secret)).toEqual([]);
  });
});
