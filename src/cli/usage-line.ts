import { CommandHelp, toConfiguredId, type Command, type Interfaces } from '@oclif/core';

/** oclif's own usage line for a command, the one `--help` shows, without the leading `$ `. */
class UsageLine extends CommandHelp {
  line(): string {
    const usage = this.command.usage;
    return Array.isArray(usage) ? (usage[0] ?? this.defaultUsage()) : (usage ?? this.defaultUsage());
  }
}

/** `factorly vault get KEY [-c <value>] [--global] [--backend <value>]`, for an error about how a command was called. */
export function usageLine(command: Command.Loadable, config: Interfaces.Config): string {
  const id = toConfiguredId(command.id, config);
  const body = new UsageLine(command, config, { maxWidth: Number.MAX_SAFE_INTEGER })
    .line()
    .replace('<%= command.id %>', id);
  return `${config.bin} ${body.startsWith(id) ? body : `${id} ${body}`}`;
}
