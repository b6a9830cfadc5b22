import { Args, Flags } from '@oclif/core';
import { paramsText } from '../../cli/audit-format.js';
import { FactorlyCommand } from '../../cli/base-command.js';
import { openRecordedLog } from '../../cli/project-log.js';
import type { CallNode } from '../../events/call-tree.js';
import { FactorlyError } from '../../base/errors.js';
import { printableLine, printableText } from '../../base/printable.js';

export default class LogsShow extends FactorlyCommand {
  static summary = 'Show one call with its shadow decisions, its inner calls and its script source.';
  static args = {
    call: Args.string({
      description: 'Call id, or a prefix (at least 4 hex chars) of one of its event hashes.',
      required: true,
    }),
  };
  static flags = { json: Flags.boolean({ description: 'Print the call tree as JSON.' }) };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(LogsShow);
    if (!/^[0-9a-f-]{4,}$/i.test(args.call))
      throw new FactorlyError('USAGE', `"${args.call}" is not a call id or a hash prefix (at least 4 hex chars)`);
    const log = await openRecordedLog(flags.config);
    try {
      const { callTree, findOneCall } = await import('../../events/call-tree.js');
      const callId = await findOneCall(log, args.call);
      const tree = (await callTree(log, callId))!;
      if (flags.json) this.writeJson(tree);
      else {
        this.log(render(tree.root, '').map(printableLine).join('\n'));
        if (tree.source)
          this.log(
            `\nSource ${tree.source.sha.slice(0, 12)} (${printableLine(tree.source.language)}):\n${printableText(tree.source.text)}`,
          );
      }
    } finally {
      await log.close();
    }
  }
}

function render(node: CallNode, indent: string): string[] {
  const { entry } = node;
  const duration = entry.durationMs === undefined ? '' : ` ${entry.durationMs}ms`;
  const exit = entry.exitCode === undefined ? '' : ` exit ${entry.exitCode}`;
  const lines = [
    `${indent}${entry.tool} [${entry.status ?? 'running'}${exit}${duration}] ${entry.callId} (${entry.iface}${entry.agentId ? `, agent ${entry.agentId}` : ''})`,
  ];
  lines.push(`${indent}  params: ${shorten(JSON.stringify(entry.params))}`);
  if (entry.highlightParams) lines.push(`${indent}  highlight: ${shorten(paramsText(entry.highlightParams))}`);
  if (entry.engine) lines.push(`${indent}  engine: ${entry.engine.name} (${entry.engine.version})`);
  for (const [name, info] of Object.entries(node.capped ?? {}))
    lines.push(
      `${indent}  param ${name}: capped in the log (${info.bytes} bytes, sha256 ${info.sha256.slice(0, 16)}…)`,
    );
  for (const [name, references] of Object.entries(node.hydrationRefused ?? {}))
    lines.push(
      `${indent}  param ${name}: refused hydration of ${references.join(', ')} (not in its hydrate_vault_refs)`,
    );
  for (const d of node.decisions) lines.push(`${indent}  shadow ${d.rule}: ${d.decision} — ${d.reason}`);
  if (entry.error) lines.push(`${indent}  error: ${entry.error.trim().split('\n')[0]}`);
  for (const child of node.children) lines.push(...render(child, `${indent}  `));
  return lines;
}

/** At most 200 characters of a line, the cut marked. */
function shorten(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
