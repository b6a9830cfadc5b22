import { hostname } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { getWithHost } from '../../../test/helpers/http-get.js';
import { tempProject } from '../../../test/helpers/project.js';
import { startUi } from './harness.js';

const stops: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

const project = () =>
  tempProject({ '.factorly/factorly.yaml': 'tools:\n  hi: {type: cli, command: echo, args: [hi]}\n' });

describe('factorly ui checks Host against the names it serves, port included, on every bind', () => {
  it('factorly ui refuses its own names on another port (a page of another local server) and foreign names', async () => {
    const ui = await startUi(project());
    stops.push(ui.stop);
    const port = new URL(ui.origin).port;
    const cookie = `factorly_session=${ui.token}`;
    expect(await getWithHost(port, '/history', { host: `127.0.0.1:${Number(port) + 1}`, cookie })).toMatchObject({
      status: 403,
    });
    expect(await getWithHost(port, '/history', { host: `localhost:${Number(port) + 1}`, cookie })).toMatchObject({
      status: 403,
    });
    expect(await getWithHost(port, '/history', { host: 'attacker.example', cookie })).toMatchObject({ status: 403 });
    expect(await getWithHost(port, '/history', { host: `localhost:${port}`, cookie })).toMatchObject({ status: 200 });
  });

  it("factorly ui bound to every address still checks Host: the machine's names and --allowed-host pass, others do not", async () => {
    const ui = await startUi(project(), {}, ['--host', '0.0.0.0', '--allowed-host', 'ui.proxy.test']);
    stops.push(ui.stop);
    const port = new URL(ui.origin).port;
    const cookie = `factorly_session=${ui.token}`;
    expect(await getWithHost(port, '/history', { host: `rebound.attacker.example:${port}`, cookie })).toMatchObject({
      status: 403,
    });
    expect(await getWithHost(port, '/history', { host: `${hostname()}:${port}`, cookie })).toMatchObject({
      status: 200,
    });
    expect(await getWithHost(port, '/history', { host: `ui.proxy.test:${port}`, cookie })).toMatchObject({
      status: 200,
    });
    expect(await getWithHost(port, '/history', { host: `${hostname()}:${port}` })).toMatchObject({ status: 401 });
  });
});
