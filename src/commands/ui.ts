import { Flags } from '@oclif/core';
import { FactorlyCommand } from '../cli/base-command.js';
import { paragraphs } from '../cli/help-text.js';

/** The package that ships the `ui` interface, named when it is missing. */
const UI_PLUGIN = '@factorly/plugin-interface-ui';

export default class Ui extends FactorlyCommand {
  static summary =
    'Open the web UI (the `ui` interface, as `serve --interface ui` runs it): dashboard, live call history and call trees, approvals, tools (with editing), the vault and the audit chain.';
  static description = paragraphs`Serves the UI on http://<host>:<port>/, bound to 127.0.0.1 unless --host says otherwise, and
prints its address with a session token (the first visit trades it for a cookie). Every call made
from the UI goes through the same pipeline as any other (iface "ui"); SIGINT/SIGTERM let in-flight
calls finish before the log is closed.`;
  static examples = ['<%= config.bin %> ui', '<%= config.bin %> ui --port 0 --no-open'];
  static flags = {
    port: Flags.integer({ description: 'Port to listen on (0 picks a free one).', min: 0, max: 65_535, default: 3741 }),
    host: Flags.string({ description: 'Address to bind.', default: '127.0.0.1' }),
    open: Flags.boolean({ description: 'Open the UI in a browser.', default: true, allowNo: true }),
    'allowed-host': Flags.string({
      description: "An extra Host name (or name:port) the UI may be addressed by, e.g. a proxy's (repeatable).",
      multiple: true,
    }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Ui);
    const kernel = await this.kernel(flags.config);
    const { runInterface } = await import('../cli/run-interface.js');
    const options = {
      port: flags.port,
      host: flags.host,
      open: flags.open,
      allowedHosts: flags['allowed-host'] ?? [],
      version: this.config.version,
    };
    // The rules' folds (the pins a page's tool list needs among them) are read before the first page asks.
    await kernel.warm().catch(() => undefined);
    await runInterface(kernel, 'ui', options, UI_PLUGIN);
  }
}
