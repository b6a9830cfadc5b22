import type { ToolPins } from '@factorly/plugin-pins/api';
import type { ShadowPolicies } from '@factorly/plugin-shadow/api';
import type {
  CallGateway,
  EventLog,
  KeyedRegistry,
  OAuthClient,
  ProjectPaths,
  SecretBackend,
  HostServices,
} from 'factorly';
import type { Approvals } from './approvals.js';
import type { EvidenceWatch } from './evidence-watch.js';
import type { LiveFeed } from './live-feed.js';
import type { PendingLogins } from './logins.js';
import type { PageContext } from './layout.js';

/** What the routes share: the kernel's services and the UI's own state. */
export interface AppDeps {
  services: HostServices;
  gateway: CallGateway;
  log: EventLog;
  paths: ProjectPaths;
  /** The installed secret backends; the vault page manages `vault` through the `SecretBackend` contract. */
  backends: KeyedRegistry<SecretBackend>;
  /** The shadow rules' policies, when the shadow plugin is installed (a tool page says when calls wait for approval). */
  policies?: ShadowPolicies;
  /** The oauth plugin's client (the Auth page), when it is installed, and the logins that page started. */
  oauth?: OAuthClient;
  logins?: PendingLogins;
  /** The tools' pins, when the pins plugin is installed (the Pins page: held tools, their diffs, the decisions). */
  pins?: ToolPins;
  approvals: Approvals;
  live: LiveFeed;
  /** The chain status and newest checkpoint the header shows. */
  evidence: EvidenceWatch;
  page: () => PageContext;
  /** Aborted when the server shuts down (ends the event streams). */
  closing: AbortSignal;
}

/** The tool agents run ad-hoc scripts through, whose successful runs can be saved as tools. */
export { CODE_TOOL } from '@factorly/plugin-provider-code/api';
