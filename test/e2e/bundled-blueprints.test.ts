import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundledBlueprints, installBlueprint } from '../../src/cli/blueprints/install.js';
import { planBlueprint } from '../../src/cli/blueprints/plan.js';
import type { ApiFake } from '../helpers/api-fake.js';
import { blueprintKernel, type BlueprintKernel } from '../helpers/blueprint-kernel.js';
import { eventsOf } from '../helpers/kernel.js';
import { makeProject } from '../helpers/project.js';
import { CREDENTIALS, GOOGLE_ACCESS_TOKEN, vendorFake } from '../helpers/vendor-fakes.js';

type Params = import('../../src/events/catalog.js').Params;
interface Call {
  tool: string;
  params: Params;
  /** The vendor operation the request must have matched. */
  operation: string;
}
interface Case {
  blueprint: string;
  vendor: string;
  /** The path the blueprint's base_url has below the vendor's host. */
  base: string;
  read: Call;
  write: Call & { sent?: unknown };
  /** A call the vendor refuses, and the error the tool then reports. */
  refused: { tool: string; params: Params; error: string; output: string };
}

const CASES: Case[] = [
  {
    blueprint: 'github',
    vendor: 'github',
    base: '',
    read: {
      tool: 'github.list_issues',
      params: { owner: 'octo', repo: 'app', state: 'open', labels: 'bug' },
      operation: 'issues/list-for-repo',
    },
    write: {
      tool: 'github.create_issue',
      params: { owner: 'octo', repo: 'app', title: 'Login fails', body: 'Steps…', labels: ['bug'] },
      operation: 'issues/create',
      sent: { title: 'Login fails', body: 'Steps…', labels: ['bug'] },
    },
    refused: {
      tool: 'github.get_issue',
      params: { owner: 'octo', repo: 'missing', issue_number: 1 },
      error: 'HTTP 404 Not Found',
      output: '"message":"Not Found"',
    },
  },
  {
    blueprint: 'gitlab',
    vendor: 'gitlab',
    base: '/api/v4',
    read: { tool: 'gitlab.list_issues', params: { project: 'group/app', search: 'flaky' }, operation: 'issues.list' },
    write: {
      tool: 'gitlab.comment_issue',
      params: { project: 'group/app', issue_iid: 3, body: 'On it.' },
      operation: 'notes.create',
      sent: { body: 'On it.' },
    },
    refused: {
      tool: 'gitlab.get_issue',
      params: { project: 'missing', issue_iid: 1 },
      error: 'HTTP 404 Not Found',
      output: '404 Project Not Found',
    },
  },
  {
    blueprint: 'slack',
    vendor: 'slack',
    base: '/api',
    read: {
      tool: 'slack.channel_history',
      params: { channel: 'C0123456789', limit: 20 },
      operation: 'conversations_history',
    },
    write: {
      tool: 'slack.post_message',
      params: { channel: 'C0123456789', text: 'Deploy done', thread_ts: '1712345678.000100' },
      operation: 'chat_postMessage',
      sent: { channel: 'C0123456789', text: 'Deploy done', thread_ts: '1712345678.000100' },
    },
    refused: {
      tool: 'slack.post_message',
      params: { channel: 'missing', text: 'hi' },
      error: 'HTTP 200: channel_not_found',
      output: '"ok":false',
    },
  },
  {
    blueprint: 'notion',
    vendor: 'notion',
    base: '',
    read: { tool: 'notion.search', params: { query: 'Runbook' }, operation: 'post-search' },
    write: {
      tool: 'notion.append_text',
      params: { page_id: '59833787-2cf9-4fdf-8782-e53db20768a5', text: 'Line "one"\nline two' },
      operation: 'patch-block-children',
      sent: {
        children: [
          {
            type: 'paragraph',
            paragraph: { rich_text: [{ type: 'text', text: { content: 'Line "one"\nline two' } }] },
          },
        ],
      },
    },
    refused: {
      tool: 'notion.get_page',
      params: { page_id: 'missing' },
      error: 'HTTP 404 Not Found',
      output: '"code":"object_not_found"',
    },
  },
  {
    blueprint: 'jira',
    vendor: 'jira',
    base: '/rest/api/3',
    read: {
      tool: 'jira.search_issues',
      params: { jql: 'project = OPS ORDER BY created DESC' },
      operation: 'searchAndReconsileIssuesUsingJql',
    },
    write: {
      tool: 'jira.create_issue',
      params: { project: 'OPS', summary: 'Disk full on db-1', description: 'Alert fired at 03:12.' },
      operation: 'createIssue',
      sent: {
        fields: {
          project: { key: 'OPS' },
          issuetype: { name: 'Task' },
          summary: 'Disk full on db-1',
          description: {
            type: 'doc',
            version: 1,
            content: [{ type: 'paragraph', content: [{ type: 'text', text: 'Alert fired at 03:12.' }] }],
          },
        },
      },
    },
    refused: {
      tool: 'jira.get_issue',
      params: { key: 'missing' },
      error: 'HTTP 404 Not Found',
      output: 'Issue does not exist',
    },
  },
  {
    blueprint: 'confluence',
    vendor: 'confluence',
    base: '/wiki/api/v2',
    read: { tool: 'confluence.list_pages', params: { space_id: '65538', title: 'Runbook' }, operation: 'getPages' },
    write: {
      tool: 'confluence.add_comment',
      params: { page_id: '98765', body: '<p>Updated the steps.</p>' },
      operation: 'createFooterComment',
      sent: { pageId: '98765', body: { representation: 'storage', value: '<p>Updated the steps.</p>' } },
    },
    refused: {
      tool: 'confluence.get_page',
      params: { id: '999999' },
      error: 'HTTP 404 Not Found',
      output: '"code":"NOT_FOUND"',
    },
  },
  {
    blueprint: 'stripe',
    vendor: 'stripe',
    base: '',
    read: { tool: 'stripe.list_customers', params: { email: 'ada@example.com', limit: 3 }, operation: 'GetCustomers' },
    write: {
      tool: 'stripe.create_customer',
      params: { email: 'ada@example.com', name: 'Ada', metadata: { order_id: '6735' } },
      operation: 'PostCustomers',
      sent: { email: 'ada@example.com', name: 'Ada', metadata: { order_id: '6735' } },
    },
    refused: {
      tool: 'stripe.get_customer',
      params: { customer: 'cus_missing' },
      error: 'HTTP 404 Not Found',
      output: "No such customer: 'cus_missing'",
    },
  },
  {
    blueprint: 'sentry',
    vendor: 'sentry',
    base: '',
    read: {
      tool: 'sentry.search_issues',
      params: { organization: 'acme', query: 'is:unresolved level:error' },
      operation: 'listOrganizationIssues',
    },
    write: {
      tool: 'sentry.update_issue',
      params: { organization: 'acme', issue_id: '1234', status: 'resolved' },
      operation: 'updateOrganizationIssue',
      sent: { status: 'resolved' },
    },
    refused: {
      tool: 'sentry.get_issue',
      params: { organization: 'acme', issue_id: 'missing' },
      error: 'HTTP 404 Not Found',
      output: 'does not exist',
    },
  },
  {
    blueprint: 'pagerduty',
    vendor: 'pagerduty',
    base: '',
    read: {
      tool: 'pagerduty.list_incidents',
      params: { statuses: ['triggered', 'acknowledged'], limit: 10 },
      operation: 'listIncidents',
    },
    write: {
      tool: 'pagerduty.create_incident',
      params: {
        from_email: 'ada@example.com',
        title: 'API down',
        service_id: 'PWIXJZS',
      },
      operation: 'createIncident',
      sent: {
        incident: {
          type: 'incident',
          title: 'API down',
          service: { id: 'PWIXJZS', type: 'service_reference' },
          urgency: 'high',
        },
      },
    },
    refused: {
      tool: 'pagerduty.get_incident',
      params: { id: 'missing' },
      error: 'HTTP 404 Not Found',
      output: '"code":2100',
    },
  },
  {
    blueprint: 'google-calendar',
    vendor: 'google',
    base: '/calendar/v3',
    read: {
      tool: 'google-calendar.list_events',
      params: { timeMin: '2024-05-01T00:00:00Z', q: 'standup' },
      operation: 'events.list',
    },
    write: {
      tool: 'google-calendar.create_event',
      params: {
        summary: 'Retro',
        start: '2024-05-02T14:00:00+02:00',
        end: '2024-05-02T15:00:00+02:00',
        attendees: [{ email: 'bo@example.com' }],
      },
      operation: 'events.insert',
      sent: {
        summary: 'Retro',
        description: '',
        start: { dateTime: '2024-05-02T14:00:00+02:00', timeZone: 'UTC' },
        end: { dateTime: '2024-05-02T15:00:00+02:00', timeZone: 'UTC' },
        attendees: [{ email: 'bo@example.com' }],
      },
    },
    refused: {
      tool: 'google-calendar.get_event',
      params: { event_id: 'missing' },
      error: 'HTTP 404 Not Found',
      output: '"status":"NOT_FOUND"',
    },
  },
  {
    blueprint: 'hubspot',
    vendor: 'hubspot',
    base: '',
    read: {
      tool: 'hubspot.search',
      params: { object_type: 'contacts', query: 'ada@example.com', properties: ['email'] },
      operation: 'post-/crm/v3/objects/{objectType}/search_doSearch',
    },
    write: {
      tool: 'hubspot.create',
      params: { object_type: 'contacts', properties: { email: 'ada@example.com', firstname: 'Ada' } },
      operation: 'post-/crm/v3/objects/{objectType}_create',
      sent: { properties: { email: 'ada@example.com', firstname: 'Ada' }, associations: [] },
    },
    refused: {
      tool: 'hubspot.get',
      params: { object_type: 'deals', id: 'missing' },
      error: 'HTTP 404 Not Found',
      output: '"category":"OBJECT_NOT_FOUND"',
    },
  },
  {
    blueprint: 'linear',
    vendor: 'linear',
    base: '',
    read: { tool: 'linear.search_issues', params: { term: 'login crash', first: 5 }, operation: 'graphql' },
    write: {
      tool: 'linear.comment_issue',
      params: { issue_id: 'ENG-123', body: 'Fixed in #42' },
      operation: 'graphql',
    },
    refused: {
      tool: 'linear.get_issue',
      params: { id: 'missing' },
      error: 'HTTP 200: Entity not found: Issue',
      output: '"errors"',
    },
  },
];

let fake: ApiFake;
let started: BlueprintKernel;
beforeAll(async () => {
  fake = await vendorFake();
  started = await blueprintKernel(makeProject());
});
afterAll(async () => {
  await started.kernel.stop();
  await fake.stop();
});

describe('bundled blueprints against their vendors', () => {
  it('ships at least 12, each with typed, described params, and every write asking first', () => {
    const bundled = bundledBlueprints(started.kernel);
    expect(bundled.map((b) => b.name).sort()).toEqual(CASES.map((c) => c.blueprint).sort());
    for (const blueprint of bundled) {
      expect(blueprint.authGuide, blueprint.name).toBeTruthy();
      for (const tool of blueprint.tools) {
        // A read is a GET, or a POST that only asks (a search, a GraphQL query).
        const reads = tool.endpoint.startsWith('GET ') || /^(search|list|get|my)/.test(tool.name.split('.')[1]);
        expect(tool.confirm, `${tool.name} ${tool.endpoint}`).toBe(!reads);
        for (const p of tool.parameters) expect(p.description, `${tool.name} --${p.name}`).toBeTruthy();
      }
    }
  });

  it('installs each into a fresh project without prompting, then a read and a write (asked first) reach the vendor as its spec says', async () => {
    const { kernel, asked } = started;
    const vault = kernel.backends.get('vault')!;
    for (const c of CASES) {
      const base = `${fake.base}/${c.vendor}${c.base}`;
      const set: Record<string, string> = { base_url: base };
      if (c.blueprint === 'google-calendar')
        Object.assign(set, { auth_url: `${fake.base}/auth`, token_url: `${fake.base}/token` });
      const plan = await planBlueprint(kernel, { source: c.blueprint, set }, { cwd: process.cwd() });
      expect(plan.conflicts, c.blueprint).toEqual([]);
      expect(plan.problems, c.blueprint).toEqual([]);
      // --no-prompt: nothing asked; the keys are then set as `factorly vault set` would.
      await installBlueprint(kernel, plan);
      for (const key of plan.vaultKeys) await vault.write!(key, CREDENTIALS[key as keyof typeof CREDENTIALS]);
      await kernel.reload();
    }
    await vault.write!(
      'google-calendar_oauth',
      JSON.stringify({ access_token: GOOGLE_ACCESS_TOKEN, token_type: 'Bearer', expires_at: Date.now() + 3_600_000 }),
    );

    for (const c of CASES) {
      for (const call of [c.read, c.write]) {
        const before = fake.of(c.vendor).length;
        const outcome = await kernel.pipeline.call({ tool: call.tool, params: call.params, iface: 'mcp' });
        expect(outcome.error ?? '', `${call.tool}: ${fake.violations.join('; ')}`).toBe('');
        const received = fake.of(c.vendor).slice(before);
        expect(
          received.map((r) => r.operation),
          call.tool,
        ).toEqual([call.operation]);
      }
      if (c.write.sent !== undefined) expect(fake.of(c.vendor).at(-1)!.body, c.write.tool).toEqual(c.write.sent);
      const refused = await kernel.pipeline.call({ tool: c.refused.tool, params: c.refused.params, iface: 'mcp' });
      expect(refused.error, c.refused.tool).toBe(c.refused.error);
      expect(refused.output, c.refused.tool).toContain(c.refused.output);
    }
    expect(fake.violations).toEqual([]);
    // Each write asked first (Slack's refused post is a write too).
    expect(asked).toEqual(
      CASES.flatMap((c) => (c.refused.tool === c.write.tool ? [c.write.tool, c.write.tool] : [c.write.tool])),
    );
  });

  it('keeps every credential out of the log and the outputs', async () => {
    const recorded = JSON.stringify(await eventsOf(started.log));
    for (const secret of [...Object.values(CREDENTIALS), GOOGLE_ACCESS_TOKEN]) expect(recorded).not.toContain(secret);
  });
});
