import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Config } from '@oclif/core';
import { describe, expect, it } from 'vitest';
import { REPO } from './helpers/project.js';

type ManifestCommand = { flags: Record<string, unknown>; args: Record<string, unknown> };

describe('oclif.manifest.json', () => {
  it('matches the commands in dist (a stale manifest hides new commands and flags)', async () => {
    const manifest = JSON.parse(readFileSync(join(REPO, 'oclif.manifest.json'), 'utf8')) as {
      version: string;
      commands: Record<string, ManifestCommand>;
    };
    const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string };
    expect(manifest.version).toBe(pkg.version);
    const config = await Config.load({ root: REPO, ignoreManifest: true });
    const root = config.getPluginsList().find((p) => p.name === 'factorly')!;
    const actual = Object.fromEntries(
      await Promise.all(
        root.commandIDs.map(async (id) => {
          const command = await root.findCommand(id, { must: true });
          return [
            id,
            {
              flags: Object.keys({ ...command.baseFlags, ...command.flags }).sort(),
              args: Object.keys(command.args ?? {}).sort(),
            },
          ] as const;
        }),
      ),
    );
    const recorded = Object.fromEntries(
      Object.entries(manifest.commands).map(([id, c]) => [
        id,
        { flags: Object.keys(c.flags).sort(), args: Object.keys(c.args).sort() },
      ]),
    );
    expect(recorded).toEqual(actual);
  });
});
