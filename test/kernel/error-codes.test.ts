import { afterEach, describe, expect, it, vi } from 'vitest';
import { reportFailure } from '../../src/cli/person-output.js';
import { openRecordedLog } from '../../src/cli/project-log.js';
import { runInterface } from '../../src/cli/run-interface.js';
import { findOneCall } from '../../src/events/call-tree.js';
import { MemoryEventLog } from '../../src/events/memory-log.js';
import type { Kernel } from '../../src/kernel/kernel.js';
import { startTestKernel } from '../helpers/kernel.js';
import { tempProject } from '../helpers/project.js';

// Each failure has a code of its own: a script telling "no such tool" from "no such call" or "nothing
// recorded yet" must not have to parse the message.

let kernel: Kernel | undefined;
afterEach(async () => {
  await kernel?.stop();
  kernel = undefined;
});

describe('error codes say what failed', () => {
  it('a call reference that matches nothing is CALL_NOT_FOUND, not TOOL_NOT_FOUND', async () => {
    await expect(findOneCall(new MemoryEventLog(), 'abcdef01')).rejects.toMatchObject({
      code: 'CALL_NOT_FOUND',
      message: 'no call matches "abcdef01"',
    });
  });

  it('reading the log of a project that recorded nothing is LOG_EMPTY', async () => {
    const root = tempProject({ '.factorly/factorly.yaml': 'tools: {}\n' });
    await expect(openRecordedLog(`${root}/.factorly/factorly.yaml`)).rejects.toMatchObject({
      code: 'LOG_EMPTY',
      message: 'no events recorded yet',
    });
  });

  it('serving an interface no plugin installed is INTERFACE_MISSING, not PROVIDER_MISSING', async () => {
    ({ kernel } = await startTestKernel('tools: {}\n'));
    await expect(runInterface(kernel, 'telnet', {}, 'a telnet plugin')).rejects.toMatchObject({
      code: 'INTERFACE_MISSING',
      message: 'no "telnet" interface is installed; it comes with a telnet plugin',
    });
  });

  it('ends a command with the exit code of the code, for an error that has only the brand (a plugin without the class)', () => {
    const written = vi.spyOn(process.stderr, 'write').mockReturnValue(true);
    try {
      const branded = (code: string) =>
        Object.assign(Object.create(Error.prototype) as Error, {
          [Symbol.for('factorly:error')]: true,
          code,
          message: `failed with ${code}`,
        });
      expect(reportFailure(branded('USAGE'))).toBe(2);
      expect(reportFailure(branded('acme.QUOTA_EXCEEDED'))).toBe(1);
      expect(written.mock.calls.map(([text]) => String(text))).toEqual([
        'Error: failed with USAGE\n',
        'Error: failed with acme.QUOTA_EXCEEDED\n',
      ]);
    } finally {
      written.mockRestore();
    }
  });
});
