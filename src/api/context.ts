import type { DeploymentIdentity } from '../domain/bootstrap.js';
import type { ConnectedDaemons } from '../domain/connected-daemons.js';
import type { DeploymentValues, ValueSource } from '../domain/deployment-options.js';
import type { EntitlementsService } from '../domain/entitlements.js';
import type { ExternalAuthOAuth } from '../domain/external-auth/external-auth-provider.js';
import type { Mailer } from '../domain/mailer.js';
import type { NotificationEnqueuer } from '../domain/notifications/notification-request.js';
import type { TemplateExamples } from '../domain/template-examples.js';
import type { UpdateCheckResult } from '../domain/update-check.js';
import type { StoreHandle } from '../store/store.js';
import type { HealthChecker } from './health/health-checker.js';
import type { ApiObserver } from './api-observer.js';
import type { RateLimits } from './plugins/rate-limit.js';
import type { AgentRelay } from './relay/agent-relay.js';
import type { ConnectionLogger } from './relay/connection-logger.js';
import type { UsageRecorder } from './usage-recorder.js';

/** What every route plugin is given: the store, the resolved settings and the deployment identity. */
export interface ApiContext {
  readonly store: StoreHandle;
  readonly values: DeploymentValues;
  readonly sources: Readonly<Record<keyof DeploymentValues, ValueSource>>;
  readonly identity: DeploymentIdentity;
  readonly rateLimits: RateLimits;
  readonly mailer: Mailer;
  /** The secret the daemon's own provisioner daemons present; empty when none run in-process. */
  readonly builtinProvisionerKey: string;
  /** Checks a workspace autostart schedule; returns what is wrong with it, if anything. */
  readonly checkSchedule: (schedule: string) => string | undefined;
  /** The agents connected to this daemon, and the relay streams and requests waiting on them. */
  readonly relay: AgentRelay;
  /** Records use of workspaces through apps and streams, at most once a minute each. */
  readonly usage: UsageRecorder;
  /** The template examples built into the binary (the native provisioner's). */
  readonly templateExamples: TemplateExamples;
  /** The provisioner daemons connected to this daemon; a cancel ends at once a job none alive holds. */
  readonly connectedDaemons: ConnectedDaemons;
  /** The deployment's entitlements from its licenses. */
  readonly entitlements: EntitlementsService;
  /** The health report's checks and their last result. */
  readonly health: HealthChecker;
  /** Told of requests and finished jobs, for the Prometheus metrics; absent when they are off. */
  readonly observer?: ApiObserver | undefined;
  /** The last answer of the release feed (the running version when update checks are off). */
  readonly updateCheck: () => UpdateCheckResult;
  /** The OAuth2 conversations with the configured external auth providers (`values.externalAuthProviders`). */
  readonly externalAuthOAuth: ExternalAuthOAuth;
  /** Queues notifications to users (e-mail, webhook, inbox); sent later by the notifier, once each. */
  readonly notifications: NotificationEnqueuer;
  /** Writes the connection log: terminals, SSH sessions, forwarded ports and app sessions through this replica. */
  readonly connectionLog: ConnectionLogger;
}
