import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { agentsFor, listTools, project, raw, targets } from './agents.js';

// server-filesystem straight over stdio, and through factorly (`serve` and `wrap`, stdio and
// Streamable HTTP). The agent's roots are the served directory, so the server serves it either way.

const require = createRequire(import.meta.url);
const FILESYSTEM = require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js');
const DIR = project({});
const PNG = join(DIR, 'photo.png');
const PNG_BYTES = pngOfNoise(140, 140);
writeFileSync(PNG, PNG_BYTES);
writeFileSync(join(DIR, 'notes.txt'), 'first\n\n\n\n\x1b[31mred\x1b[0m\n{ "pretty": [1, 2] }\nsame\nsame\nsame\n');

const SERVE_YAML = `tools:\n  fs: {type: mcp, command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(FILESYSTEM)}, ${JSON.stringify(DIR)}], prefix: false}\n`;
const ALL = targets({ serveYaml: SERVE_YAML, command: [process.execPath, FILESYSTEM, DIR], rootsDir: DIR });

const agent = agentsFor(ALL);

describe.each(ALL.filter((target) => target.factorly))('server-filesystem through factorly $name', ({ name }) => {
  it('lists every tool exactly as the server does (serve adds its built-ins after them)', async () => {
    const seen = await listTools(agent(name));
    expect(seen.filter((tool) => !String(tool.name).startsWith('factorly.'))).toEqual(await listTools(agent('direct')));
  });

  it('returns a 60 KB PNG intact, as content and as structured content', async () => {
    const args = { name: 'read_media_file', arguments: { path: PNG } };
    const [expected, seen] = await Promise.all([
      raw(agent('direct'), 'tools/call', args),
      raw(agent(name), 'tools/call', args),
    ]);
    expect(seen).toEqual(expected);
    const [image] = seen.content as { type: string; data: string; mimeType: string }[];
    expect(image).toMatchObject({ type: 'image', mimeType: 'image/png' });
    expect(Buffer.from(image!.data, 'base64').equals(PNG_BYTES)).toBe(true);
  });

  it('returns text files and listings byte for byte (blank lines, ANSI, JSON and repeated lines untouched)', async () => {
    for (const [tool, args] of [
      ['read_text_file', { path: join(DIR, 'notes.txt') }],
      ['list_directory', { path: DIR }],
      ['get_file_info', { path: join(DIR, 'notes.txt') }],
      ['list_allowed_directories', {}],
    ] as const) {
      const call = { name: tool, arguments: args };
      const [expected, seen] = await Promise.all([
        raw(agent('direct'), 'tools/call', call),
        raw(agent(name), 'tools/call', call),
      ]);
      expect(seen, tool).toEqual(expected);
    }
  });
});

/** A valid PNG of random RGB pixels: noise does not compress, so the file is about width × height × 3 bytes. */
function pngOfNoise(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer): Buffer => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const rows = Buffer.concat(
    Array.from({ length: height }, () => Buffer.concat([Buffer.from([0]), randomBytes(width * 3)])),
  );
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function crc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit += 1) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}
