import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { ServerEntry } from './entry.js';
import { updateJsonConfig, type ConfigUpdate } from './json-config.js';
import { updateTomlConfig } from './toml-config.js';

export const TARGET_NAMES = ['claude', 'cursor', 'codex'] as const;
export type TargetName = (typeof TARGET_NAMES)[number];

/** One agent whose MCP config factorly can write. */
export interface SyncTarget {
  name: TargetName;
  /** The file the agent reads its MCP servers from. */
  file: string;
  /** Whether this agent appears to be used here (its config file or directory exists). */
  detected: boolean;
  update(before: string | undefined, server: string, entry: ServerEntry, shownAs: string): ConfigUpdate;
}

export interface TargetContext {
  /** The project root (where .factorly/ lives). */
  root: string;
  env: NodeJS.ProcessEnv;
}

/** Codex reads `$CODEX_HOME/config.toml`, `~/.codex/config.toml` when CODEX_HOME is unset. */
export function codexHome(env: NodeJS.ProcessEnv): string {
  return env.CODEX_HOME && env.CODEX_HOME !== '' ? env.CODEX_HOME : join(homedir(), '.codex');
}

export function syncTargets(context: TargetContext): Record<TargetName, SyncTarget> {
  const { root, env } = context;
  const claudeFile = join(root, '.mcp.json');
  const cursorDir = join(root, '.cursor');
  const codexDir = codexHome(env);
  return {
    claude: {
      name: 'claude',
      file: claudeFile,
      detected: existsSync(claudeFile) || existsSync(join(root, '.claude')),
      update: (before, server, entry, shownAs) =>
        updateJsonConfig(before, server, entry, { file: shownAs, comments: false }),
    },
    cursor: {
      name: 'cursor',
      file: join(cursorDir, 'mcp.json'),
      detected: existsSync(cursorDir),
      update: (before, server, entry, shownAs) =>
        updateJsonConfig(before, server, entry, { file: shownAs, comments: true }),
    },
    codex: {
      name: 'codex',
      file: join(codexDir, 'config.toml'),
      detected: existsSync(codexDir),
      update: (before, server, entry, shownAs) => updateTomlConfig(before, server, entry, shownAs),
    },
  };
}
