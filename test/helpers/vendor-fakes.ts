import { join } from 'node:path';
import { ApiFake, type DocumentedRoute, type FakeAnswer, type FakeRequest, type VendorFake } from './api-fake.js';
import { REPO } from './project.js';

/**
 * The vendors the bundled blueprints talk to, as one fake: each checks requests against the vendor's
 * own published OpenAPI description (trimmed under test/fixtures/vendor-specs) or, where the vendor
 * publishes none (GitLab's lives only inside its own repository; Google publishes discovery
 * documents; Linear is GraphQL), against the operations its reference documents; each checks the
 * credentials the way the vendor does, and answers with the vendor's own success and error shapes.
 * An id, key or channel named `missing` (or the page 999999) is one the vendor does not know.
 */

export const CREDENTIALS = {
  GITHUB_TOKEN: 'ghp_fake_github_token_1',
  GITLAB_TOKEN: 'glpat-fake-gitlab-token-1',
  SLACK_BOT_TOKEN: 'xoxb-fake-slack-token-1',
  NOTION_TOKEN: 'ntn_fake_notion_token_1',
  ATLASSIAN_CREDENTIALS: 'ada@example.com:fake-atlassian-token-1',
  STRIPE_API_KEY: 'sk_test_fake_stripe_key_1',
  SENTRY_AUTH_TOKEN: 'sntrys_fake_sentry_token_1',
  PAGERDUTY_API_KEY: 'u+fakePagerDutyKey1',
  HUBSPOT_TOKEN: 'pat-eu1-fake-hubspot-token-1',
  LINEAR_API_KEY: 'lin_api_fake_linear_key_1',
  GOOGLE_CLIENT_ID: 'fake-client.apps.googleusercontent.com',
  GOOGLE_CLIENT_SECRET: 'GOCSPX-fake-secret',
} as const;
/** The access token the Google Calendar blueprint's OAuth login left in the vault. */
export const GOOGLE_ACCESS_TOKEN = 'ya29.fake-google-access-token-1';

const SPECS = join(REPO, 'test', 'fixtures', 'vendor-specs');
const missing = (request: FakeRequest): boolean =>
  /missing|999999/.test(request.path) || JSON.stringify(request.body ?? '').includes('missing');

const bearer =
  (token: string) =>
  (request: FakeRequest): string | undefined =>
    request.headers.authorization === `Bearer ${token}` ? undefined : 'bad credentials';

const basic = (credentials: string): string => `Basic ${Buffer.from(credentials).toString('base64')}`;

export async function vendorFake(): Promise<ApiFake> {
  const spec = (name: string) => ApiFake.spec(join(SPECS, `${name}.json`));
  const vendors: Record<string, VendorFake> = {
    github: {
      spec: await ApiFake.spec(join(REPO, 'test', 'fixtures', 'openapi', 'github-api.json')),
      auth: bearer(CREDENTIALS.GITHUB_TOKEN),
      unauthorized: () => ({
        status: 401,
        body: { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest' },
      }),
      answer: (r) =>
        missing(r)
          ? { status: 404, body: { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' } }
          : r.method === 'POST'
            ? {
                status: 201,
                body: { number: 42, html_url: 'https://github.com/octo/app/issues/42', ...(r.body as object) },
              }
            : { body: { total_count: 1, items: [{ number: 7, title: 'Login fails', state: 'open' }] } },
    },
    gitlab: {
      documented: GITLAB,
      auth: bearer(CREDENTIALS.GITLAB_TOKEN),
      unauthorized: () => ({ status: 401, body: { message: '401 Unauthorized' } }),
      answer: (r) =>
        missing(r)
          ? { status: 404, body: { message: '404 Project Not Found' } }
          : r.method === 'POST'
            ? {
                status: 201,
                body: { iid: 12, web_url: 'https://gitlab.com/group/app/-/issues/12', ...(r.body as object) },
              }
            : { body: [{ iid: 3, title: 'Flaky pipeline', state: 'opened' }] },
    },
    slack: {
      spec: await spec('slack'),
      prefix: '/api',
      satisfiedByAuth: ['token'],
      auth: bearer(CREDENTIALS.SLACK_BOT_TOKEN),
      // Slack answers every failure with 200 and ok: false.
      unauthorized: () => ({ body: { ok: false, error: 'invalid_auth' } }),
      answer: (r) =>
        missing(r)
          ? { body: { ok: false, error: 'channel_not_found' } }
          : r.method === 'POST'
            ? { body: { ok: true, channel: 'C0123456789', ts: '1712345678.000200', message: { text: 'hi' } } }
            : {
                body: {
                  ok: true,
                  channels: [{ id: 'C0123456789', name: 'ops' }],
                  response_metadata: { next_cursor: '' },
                },
              },
    },
    notion: {
      spec: await spec('notion'),
      auth: (r) =>
        bearer(CREDENTIALS.NOTION_TOKEN)(r) ??
        (r.headers['notion-version'] === '2025-09-03' ? undefined : 'no Notion-Version'),
      unauthorized: (why) => ({
        status: 401,
        body: { object: 'error', status: 401, code: 'unauthorized', message: why },
      }),
      answer: (r) =>
        missing(r)
          ? {
              status: 404,
              body: {
                object: 'error',
                status: 404,
                code: 'object_not_found',
                message: 'Could not find page with ID: missing.',
              },
            }
          : {
              body: {
                object: r.method === 'GET' ? 'list' : 'page',
                id: '59833787-2cf9-4fdf-8782-e53db20768a5',
                results: [],
              },
            },
    },
    jira: atlassian(await spec('jira'), '', (r) =>
      missing(r)
        ? {
            status: 404,
            body: { errorMessages: ['Issue does not exist or you do not have permission to see it.'], errors: {} },
          }
        : r.method === 'POST'
          ? {
              status: 201,
              body: { id: '10042', key: 'OPS-42', self: 'https://acme.atlassian.net/rest/api/3/issue/10042' },
            }
          : { body: { issues: [{ key: 'OPS-7', fields: { summary: 'Disk full' } }], isLast: true } },
    ),
    confluence: atlassian(await spec('confluence'), '/wiki/api/v2', (r) =>
      missing(r)
        ? { status: 404, body: { errors: [{ status: 404, code: 'NOT_FOUND', title: 'Not Found', detail: null }] } }
        : { body: { results: [{ id: '98765', title: 'Runbook' }], _links: {} } },
    ),
    stripe: {
      spec: await spec('stripe'),
      auth: bearer(CREDENTIALS.STRIPE_API_KEY),
      unauthorized: () => ({
        status: 401,
        body: { error: { message: 'Invalid API Key provided: sk_test_****', type: 'invalid_request_error' } },
      }),
      answer: (r) =>
        missing(r)
          ? {
              status: 404,
              body: {
                error: {
                  code: 'resource_missing',
                  doc_url: 'https://stripe.com/docs/error-codes/resource-missing',
                  message: "No such customer: 'cus_missing'",
                  param: 'id',
                  type: 'invalid_request_error',
                },
              },
            }
          : { body: { object: r.method === 'POST' ? 'customer' : 'list', id: 'cus_NffrFeUfNV2Hib', data: [] } },
    },
    sentry: {
      spec: await spec('sentry'),
      partialBodies: true,
      auth: bearer(CREDENTIALS.SENTRY_AUTH_TOKEN),
      unauthorized: () => ({ status: 401, body: { detail: 'Invalid token' } }),
      answer: (r) =>
        missing(r)
          ? { status: 404, body: { detail: 'The requested resource does not exist' } }
          : {
              body:
                r.method === 'PUT' ? { status: 'resolved' } : [{ id: '1234', shortId: 'APP-1A', title: 'TypeError' }],
            },
    },
    pagerduty: {
      spec: await spec('pagerduty'),
      auth: (r) => (r.headers.authorization === `Token token=${CREDENTIALS.PAGERDUTY_API_KEY}` ? undefined : 'bad key'),
      unauthorized: () => ({ status: 401, body: { error: { message: 'Unauthorized', code: 2006 } } }),
      answer: (r) =>
        missing(r)
          ? { status: 404, body: { error: { message: 'Not Found', code: 2100 } } }
          : {
              status: r.method === 'POST' ? 201 : 200,
              body: { incidents: [], incident: { id: 'PT4KHLK', status: 'triggered' } },
            },
    },
    hubspot: {
      spec: await spec('hubspot'),
      auth: bearer(CREDENTIALS.HUBSPOT_TOKEN),
      unauthorized: () => ({
        status: 401,
        body: { status: 'error', message: 'Authentication credentials not found.', category: 'INVALID_AUTHENTICATION' },
      }),
      answer: (r) =>
        missing(r)
          ? {
              status: 404,
              body: {
                status: 'error',
                message: 'resource not found',
                category: 'OBJECT_NOT_FOUND',
                correlationId: 'aeb5f871-7f07-4993-9211-075dc63e7cbf',
              },
            }
          : {
              status: r.method === 'POST' && !r.path.endsWith('/search') ? 201 : 200,
              body: { id: '512', total: 1, results: [] },
            },
    },
    google: {
      documented: GOOGLE_CALENDAR,
      auth: bearer(GOOGLE_ACCESS_TOKEN),
      unauthorized: () => ({ status: 401, body: googleError(401, 'UNAUTHENTICATED', 'Invalid Credentials') }),
      answer: (r) =>
        missing(r)
          ? { status: 404, body: googleError(404, 'NOT_FOUND', 'Not Found') }
          : r.method === 'DELETE'
            ? { status: 204, body: '' }
            : { body: { kind: 'calendar#events', items: [{ id: 'evt1', summary: 'Standup' }] } },
    },
    linear: {
      documented: LINEAR,
      auth: (r) => (r.headers.authorization === CREDENTIALS.LINEAR_API_KEY ? undefined : 'bad key'),
      unauthorized: () => ({
        status: 400,
        body: {
          errors: [
            { message: 'Authentication required, not authenticated', extensions: { code: 'AUTHENTICATION_ERROR' } },
          ],
        },
      }),
      // GraphQL answers an unknown entity with 200 and an errors list.
      answer: (r) =>
        missing(r)
          ? {
              body: {
                data: null,
                errors: [{ message: 'Entity not found: Issue', extensions: { code: 'INVALID_INPUT' } }],
              },
            }
          : { body: { data: { searchIssues: { nodes: [] }, issueCreate: { success: true } } } },
    },
  };
  return new ApiFake(vendors).start();
}

function atlassian(spec: Record<string, unknown>, prefix: string, answer: (r: FakeRequest) => FakeAnswer): VendorFake {
  return {
    spec,
    prefix,
    auth: (r) => (r.headers.authorization === basic(CREDENTIALS.ATLASSIAN_CREDENTIALS) ? undefined : 'bad credentials'),
    unauthorized: () => ({ status: 401, body: 'Client must be authenticated to access this resource.' }),
    answer,
  };
}

function googleError(code: number, status: string, message: string) {
  return {
    error: {
      code,
      message,
      errors: [{ domain: 'global', reason: status === 'NOT_FOUND' ? 'notFound' : 'authError', message }],
      status,
    },
  };
}

const fields =
  (allowed: readonly string[], required: readonly string[] = []) =>
  (body: unknown): string | undefined => {
    const record = (body ?? {}) as Record<string, unknown>;
    const unknown = Object.keys(record).find((key) => !allowed.includes(key));
    if (unknown) return `body field "${unknown}" is not documented`;
    const absent = required.find((key) => record[key] === undefined || record[key] === '');
    return absent ? `body field "${absent}" is required` : undefined;
  };

/** GitLab's REST reference (docs.gitlab.com/api/issues, /merge_requests, /notes, /search). */
const GITLAB: DocumentedRoute[] = [
  {
    operation: 'issues.list',
    method: 'GET',
    path: /^\/api\/v4\/projects\/[^/]+\/issues$/,
    query: ['state', 'labels', 'search', 'per_page', 'page'],
  },
  { operation: 'issues.get', method: 'GET', path: /^\/api\/v4\/projects\/[^/]+\/issues\/\d+$/ },
  {
    operation: 'merge_requests.list',
    method: 'GET',
    path: /^\/api\/v4\/projects\/[^/]+\/merge_requests$/,
    query: ['state', 'per_page', 'page'],
  },
  { operation: 'merge_requests.get', method: 'GET', path: /^\/api\/v4\/projects\/[^/]+\/merge_requests\/\d+$/ },
  {
    operation: 'search.project',
    method: 'GET',
    path: /^\/api\/v4\/projects\/[^/]+\/search$/,
    query: ['scope', 'search'],
  },
  {
    operation: 'issues.create',
    method: 'POST',
    path: /^\/api\/v4\/projects\/[^/]+\/issues$/,
    body: fields(['title', 'description', 'labels'], ['title']),
  },
  {
    operation: 'notes.create',
    method: 'POST',
    path: /^\/api\/v4\/projects\/[^/]+\/issues\/\d+\/notes$/,
    body: fields(['body'], ['body']),
  },
];

const EVENT_FIELDS = ['summary', 'description', 'start', 'end', 'attendees'];
/** Google's Calendar API v3 discovery document (calendar.v3.json): calendarList.list, events.list/get/insert/delete. */
const GOOGLE_CALENDAR: DocumentedRoute[] = [
  {
    operation: 'calendarList.list',
    method: 'GET',
    path: /^\/calendar\/v3\/users\/me\/calendarList$/,
    query: ['maxResults', 'pageToken'],
  },
  {
    operation: 'events.list',
    method: 'GET',
    path: /^\/calendar\/v3\/calendars\/[^/]+\/events$/,
    query: ['timeMin', 'timeMax', 'q', 'singleEvents', 'orderBy', 'maxResults', 'pageToken'],
  },
  { operation: 'events.get', method: 'GET', path: /^\/calendar\/v3\/calendars\/[^/]+\/events\/[^/]+$/ },
  {
    operation: 'events.insert',
    method: 'POST',
    path: /^\/calendar\/v3\/calendars\/[^/]+\/events$/,
    body: (body) => {
      const problem = fields(EVENT_FIELDS, ['summary', 'start', 'end'])(body);
      if (problem) return problem;
      const { start, end } = body as Record<string, Record<string, unknown>>;
      return [start, end].every((time) => typeof time?.dateTime === 'string' && typeof time.timeZone === 'string')
        ? undefined
        : 'start and end must be EventDateTime objects ({dateTime, timeZone})';
    },
  },
  { operation: 'events.delete', method: 'DELETE', path: /^\/calendar\/v3\/calendars\/[^/]+\/events\/[^/]+$/ },
];

/** Linear's GraphQL API: the root fields the blueprint uses, their variables typed as its schema declares them. */
const LINEAR_ROOTS: Record<string, Record<string, string>> = {
  teams: {},
  searchIssues: { term: 'String!', first: 'Int' },
  viewer: { first: 'Int' },
  issue: { id: 'String!' },
  issueCreate: { input: 'IssueCreateInput!' },
  commentCreate: { input: 'CommentCreateInput!' },
};
const LINEAR: DocumentedRoute[] = [
  {
    operation: 'graphql',
    method: 'POST',
    path: /^\/graphql$/,
    body: (body) => {
      const { query, variables = {} } = (body ?? {}) as { query?: string; variables?: Record<string, unknown> };
      const match = /^(query|mutation) \w+(?:\(([^)]*)\))? \{ (\w+)/.exec(query ?? '');
      if (!match) return 'not a named GraphQL query or mutation';
      const declared = Object.fromEntries(
        [...(match[2] ?? '').matchAll(/\$(\w+): ([\w!]+)/g)].map((m) => [m[1], m[2]]),
      );
      if (JSON.stringify(declared) !== JSON.stringify(LINEAR_ROOTS[match[3]]))
        return `unexpected variables for ${match[3]}`;
      for (const [name, type] of Object.entries(declared)) {
        const value = variables[name];
        if (type.endsWith('!') && (value === undefined || value === '')) return `variable $${name} is required`;
        if (type.startsWith('Int') && value !== undefined && !Number.isInteger(value))
          return `variable $${name} is not an Int`;
      }
      return undefined;
    },
  },
];
