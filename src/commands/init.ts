import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Flags } from '@oclif/core';
import { FactorlyCommand } from '../cli/base-command.js';
import { FactorlyError } from '../base/errors.js';

const EXAMPLE = `# factorly tools. Call one with: factorly call greet --name Ada
tools:
  greet:
    type: cli
    description: Say hello (an example cli tool; no shell is involved).
    command: echo
    args: ["Hello, {{name}}!"]
    parameters:
      - name: name
        description: Who to greet
        default: world
`;

const RUNTIME_STATE = ['.factorly/events.lmdb', '.factorly/events.lmdb-lock', '.factorly/vault.key'];
const GITIGNORE_HEADER = '# factorly runtime state';

export default class Init extends FactorlyCommand {
  // init makes the config, so it takes no -c: the cast keeps the base class's static shape.
  static baseFlags = {} as typeof FactorlyCommand.baseFlags;
  static summary = 'Create .factorly/factorly.yaml with an example tool.';
  static description =
    "Also creates .factorly/tools/ and, when a .gitignore exists, adds factorly's runtime state to it.";
  static flags = {
    dir: Flags.string({ description: 'Project directory.', default: '.' }),
    json: Flags.boolean({ description: 'Print what was created as JSON.' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Init);
    const root = flags.dir;
    const configFile = join(root, '.factorly', 'factorly.yaml');
    if (existsSync(configFile)) throw new FactorlyError('USAGE', `${relative('.', configFile)} already exists`);
    mkdirSync(join(root, '.factorly', 'tools'), { recursive: true });
    writeFileSync(configFile, EXAMPLE, { flag: 'wx' });
    const ignored = addToGitignore(join(root, '.gitignore'));
    const created = {
      config: relative('.', configFile),
      tools: relative('.', join(root, '.factorly', 'tools')),
      gitignore: ignored,
    };
    if (flags.json) return this.writeJson(created);
    this.log(`Created ${created.config} with an example tool "greet".`);
    if (ignored.length > 0) this.log(`Added ${ignored.join(', ')} to .gitignore.`);
    this.log('Try it: factorly call greet --name Ada   then: factorly logs');
  }
}

/** Appends the runtime-state paths missing from an existing .gitignore; returns what it added. */
function addToGitignore(file: string): string[] {
  if (!existsSync(file)) return [];
  const current = readFileSync(file, 'utf8');
  const lines = new Set(current.split(/\r?\n/).map((line) => line.trim()));
  const missing = RUNTIME_STATE.filter((entry) => !lines.has(entry));
  if (missing.length === 0) return [];
  const prefix = current === '' || current.endsWith('\n') ? '' : '\n';
  const header = lines.has(GITIGNORE_HEADER) ? '' : `${GITIGNORE_HEADER}\n`;
  appendFileSync(file, `${prefix}${header}${missing.join('\n')}\n`);
  return missing;
}
