#!/usr/bin/env node
// `oclif manifest` lists commands in the order their modules finished loading, which varies from
// run to run. Sort them so the committed manifest only changes when the commands do.
import { readFileSync, writeFileSync } from 'node:fs';

const file = new URL('../oclif.manifest.json', import.meta.url);
const manifest = JSON.parse(readFileSync(file, 'utf8'));
manifest.commands = Object.fromEntries(Object.entries(manifest.commands).sort(([a], [b]) => a.localeCompare(b)));
writeFileSync(file, `${JSON.stringify(manifest, null, 2)}\n`);
