import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { Flags } from '@oclif/core';
import { FactorlyCommand } from '../../cli/base-command.js';
import { parseBound } from '../../cli/bounds.js';
import { openExistingLog } from '../../cli/project-log.js';
import type { Recorded } from '../../events/envelope.js';
import { paragraphs } from '../../cli/help-text.js';

const OTLP_BATCH = 1000;

export default class LogsExport extends FactorlyCommand {
  static summary = 'Export the raw event log (with hashes) for a SIEM or an archive.';
  static description = paragraphs`Formats (--format):
- jsonl: one event envelope per line, exactly as stored (verifiable elsewhere).
- otlp-json: OpenTelemetry logs as JSON, one ExportLogsServiceRequest per line of up to ${OTLP_BATCH} events.`;
  static flags = {
    format: Flags.string({ description: 'Output format.', options: ['jsonl', 'otlp-json'], default: 'jsonl' }),
    output: Flags.string({ char: 'o', description: 'Write to this file instead of stdout.' }),
    since: Flags.string({ description: 'From this seq or time.' }),
    until: Flags.string({ description: 'Up to this seq or time.' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(LogsExport);
    const since = parseBound('since', flags.since);
    const until = parseBound('until', flags.until);
    const log = await openExistingLog(flags.config);
    if (!log) return;
    const out: Writable = flags.output ? createWriteStream(flags.output, { mode: 0o600 }) : process.stdout;
    let count = 0;
    try {
      const { otlpDocument } = await import('../../events/otlp.js');
      const { wholeRange } = await import('../../events/whole-read.js');
      const from = since && 'seq' in since ? since.seq : undefined;
      const to = until && 'seq' in until ? until.seq : undefined;
      let batch: Recorded[] = [];
      const flush = async (): Promise<void> => {
        if (batch.length > 0) await write(out, `${JSON.stringify(otlpDocument(batch, this.config.version))}\n`);
        batch = [];
      };
      // Every event up to the head record, or an error naming the log: never an export cut short that ends as if whole.
      for await (const event of wholeRange(log, { from, to })) {
        if (since && 'time' in since && new Date(event.at) < since.time) continue;
        if (until && 'time' in until && new Date(event.at) > until.time) break;
        count += 1;
        if (flags.format === 'jsonl') await write(out, `${JSON.stringify(event)}\n`);
        else if (batch.push(event) >= OTLP_BATCH) await flush();
      }
      await flush();
    } finally {
      await log.close();
      if (flags.output) {
        out.end();
        await once(out, 'finish');
        process.stderr.write(`Exported ${count} events to ${flags.output} (${flags.format})\n`);
      }
    }
  }
}

/** Writes with back-pressure, so exporting a large log does not buffer it all in memory. */
async function write(out: Writable, text: string): Promise<void> {
  if (!out.write(text)) await once(out, 'drain');
}
