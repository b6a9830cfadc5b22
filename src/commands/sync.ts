import { existsSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { Flags } from '@oclif/core';
import { FactorlyCommand } from '../cli/base-command.js';
import { serverEntry } from '../cli/sync/entry.js';
import { runSync, shown, type SyncResult } from '../cli/sync/sync.js';
import { TARGET_NAMES, type TargetName } from '../cli/sync/targets.js';
import { FactorlyError } from '../base/errors.js';
import { findConfig } from '../config/paths.js';
import { paragraphs } from '../cli/help-text.js';

export default class Sync extends FactorlyCommand {
  static summary = "Add factorly to your agents' MCP config: Claude Code, Cursor, Codex.";
  static description = paragraphs`Writes an MCP server entry that launches "factorly serve --config <this project's config>" into
Claude Code's .mcp.json, Cursor's .cursor/mcp.json and Codex's config.toml ($CODEX_HOME, else ~/.codex).
Without --target, it syncs the agents it finds (.mcp.json or .claude/, .cursor/, the Codex home).
Other servers, keys and comments are kept; a changed file is first copied to <file>.bak-<time>,
then replaced atomically; the diff of each change is shown. Running it again changes nothing.`;
  static examples = [
    '<%= config.bin %> sync',
    '<%= config.bin %> sync --target claude --dry-run',
    '<%= config.bin %> sync --target codex --name factorly-api',
  ];
  static flags = {
    target: Flags.string({
      char: 't',
      description: 'Agent to configure (repeatable; default: the ones detected).',
      options: [...TARGET_NAMES],
      multiple: true,
    }),
    'dry-run': Flags.boolean({ description: 'Show the diffs and write nothing.', default: false }),
    json: Flags.boolean({ description: 'Print the results as JSON.' }),
    name: Flags.string({
      description: "Server name in the agent config (Codex's config is global: one name per project).",
      default: 'factorly',
    }),
    command: Flags.string({
      description:
        'Launch this command from PATH (e.g. "factorly") instead of this node and factorly\'s absolute path.',
    }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Sync);
    if (!/^[A-Za-z0-9_-]+$/.test(flags.name))
      throw new FactorlyError('USAGE', `--name "${flags.name}" may only use letters, digits, "_" and "-"`);
    const paths = findConfig({ cwd: process.cwd(), explicit: flags.config });
    if (paths.global || !existsSync(paths.mainFile)) {
      throw new FactorlyError(
        'CONFIG_NOT_FOUND',
        "sync connects agents to a project's config: run 'factorly init' first, or pass --config",
      );
    }
    const bin = realpathSync(join(this.config.root, 'bin', 'run.js'));
    const entry = serverEntry({ node: process.execPath, bin, config: paths.mainFile, command: flags.command });
    // oclif has checked each --target against TARGET_NAMES.
    const targets = (flags.target ?? []) as TargetName[];
    const results = runSync({
      root: paths.baseDir,
      env: process.env,
      cwd: process.cwd(),
      targets,
      server: flags.name,
      entry,
      dryRun: flags['dry-run'],
    });
    for (const result of results) {
      if (result.replacedConfig)
        this.warnLine(
          `${result.target}: "${flags.name}" served ${result.replacedConfig}; it now serves ${paths.mainFile} (use --name to keep both)`,
        );
    }
    if (flags.json) return this.writeJson({ dryRun: flags['dry-run'], server: flags.name, entry, results });
    for (const result of results) this.report(result, flags['dry-run']);
  }

  private report(result: SyncResult, dryRun: boolean): void {
    if (result.diff !== '') process.stdout.write(result.diff.endsWith('\n') ? result.diff : `${result.diff}\n`);
    if (result.status === 'unchanged') return this.log(`${result.target}: ${result.file} already up to date`);
    const verb = result.status === 'created' ? 'create' : 'update';
    if (dryRun) return this.log(`${result.target}: would ${verb} ${result.file} (dry run: nothing written)`);
    const backup = result.backup ? ` (backup: ${shown(result.backup, process.cwd())})` : '';
    this.log(`${result.target}: ${verb}d ${result.file}${backup}`);
  }
}
