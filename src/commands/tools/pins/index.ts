import { paragraphs } from '../../../cli/help-text.js';
import { table } from '../../../cli/table.js';
import { PinsCommand } from '../../../cli/pins-command.js';
import type { ToolPinStatus } from '../../../contracts/pins.js';

export default class ToolsPins extends PinsCommand {
  static summary = "List the tools' pinned definitions and the tools held because a definition changed.";
  static description = paragraphs`The first time factorly sees a tool it pins a digest of what agents are told about it (name, title,
description, schemas, annotations). A listing that differs holds the tool: agents do not see it and its
calls are refused (definition_changed) until a person approves the change (tools pins approve) or rejects
it (tools pins reject). Tools the project's own config defines are pinned again when the file changes.`;

  static examples = ['<%= config.bin %> tools pins', '<%= config.bin %> tools pins --json'];
  static flags = { ...PinsCommand.jsonFlag };

  async run(): Promise<void> {
    const { flags } = await this.parse(ToolsPins);
    const pins = await (await this.pins(flags.config)).list();
    if (flags.json) {
      this.writeJson({ pins });
      return;
    }
    if (pins.length === 0) {
      this.log('No tool is pinned yet: pins are recorded when tools are first listed or called.');
      return;
    }
    const rows = pins.map((pin) => [pin.tool, pin.source, pin.state, pinned(pin), held(pin)]);
    this.log(table(['TOOL', 'SOURCE', 'STATE', 'PINNED', 'HELD'], rows, process.stdout.columns || 100, 4));
    const waiting = pins.filter((pin) => pin.state === 'held').length;
    if (waiting > 0)
      this.log(`\n${waiting} held: see a change with \`tools pins diff <tool>\`, then approve or reject it.`);
  }
}

function pinned(pin: ToolPinStatus): string {
  if (!pin.pin) return '—';
  return `${pin.pin.digest.slice(0, 12)} ${pin.pin.cause}${pin.pin.by ? ` by ${pin.pin.by}` : ''}`;
}

function held(pin: ToolPinStatus): string {
  return pin.held
    .map(
      (h) =>
        `${h.digest.slice(0, 12)} ${h.cause}${h.sessionId ? ` (session ${h.sessionId})` : ''}${h.rejected ? ' rejected' : ''}`,
    )
    .join('; ');
}
