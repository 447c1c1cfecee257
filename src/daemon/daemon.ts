import { ENTITLEMENTS_CHANNEL, EntitlementsService } from '../domain/entitlements.js';
import { OAuthClient } from '../domain/external-auth/oauth-client.js';
import { trustedLicenseKeys } from '../domain/licenses/trusted-keys.js';
import { WEAK_HASHES_VARIABLE } from '../domain/passwords.js';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { buildApp } from '../api/app.js';
import { createRateLimits } from '../api/plugins/rate-limit.js';
import { httpServerTimeouts } from '../api/http-timeouts.js';
import { bootstrapDeployment, type DeploymentIdentity } from '../domain/bootstrap.js';
import { createMailer } from '../domain/mailer.js';
import { builtInTemplateExamples } from '../provisioner/native/examples/index.js';
import type { DeploymentValues, ResolvedOptions } from '../domain/deployment-options.js';
import { ConnectedDaemons } from '../domain/connected-daemons.js';
import { reapHungJobs } from '../domain/job-reaper.js';
import { failJobsOfPreviousRun } from '../domain/job-recovery.js';
import { SYSTEM_SUBJECTS } from '../rbac/index.js';
import { runAutobuild } from '../domain/autobuild.js';
import { weeklyScheduleProblem } from '../domain/schedule/index.js';
import { markInactiveUsersDormant } from '../domain/user-dormancy.js';
import { purgeExpired } from '../domain/retention/purge-expired.js';
import { UpdateChecker } from '../domain/update-check.js';
import { randomAlphanumeric } from '../lib/random.js';
import { systemClock, type Clock } from '../lib/clock.js';
import type { DatabaseTarget } from '../store/database.js';
import { Store } from '../store/store.js';
import { installTokenKeys } from '../store/token-keys.js';
import { IdleMemoryReclaimer } from './idle-memory-reclaimer.js';
import { snapshotBeforeMigrating } from './pre-migration-snapshot.js';
import { PeriodicTask } from './periodic-task.js';
import { createNotifier } from './notifier.js';
import type { NotificationQueue } from '../domain/notifications/notification-queue.js';
import { openEventExport } from './event-export-writer.js';
import { SHUTDOWN_STEPS_MS, within } from './graceful-shutdown.js';
import { splitHostPort } from './host-port.js';
import { applyHttpsPolicy } from './https-policy.js';
import { listenTls } from './tls-listener.js';
import { listenBacklog } from './listen-backlog.js';
import { loadTlsCertificates } from './tls-certificates.js';
import { createPrometheusMetrics, type PrometheusMetrics } from './prometheus-metrics.js';
import { HealthChecker } from '../api/health/health-checker.js';
import { securePrivateFiles } from './private-files.js';
import { AgentRelay } from '../api/relay/agent-relay.js';
import { UsageRecorder } from '../api/usage-recorder.js';
import { ConnectionLogger } from '../api/relay/connection-logger.js';
import { builtinDaemonIdPrefix, startBuiltinProvisioners, type BuiltinProvisioners } from './builtin-provisioners.js';
import { loadReplicaIdentity, type ReplicaIdentity } from './replica-identity.js';
import type { EventNotifier } from '../domain/notifications/events/event-notifier.js';
import { queueAutostopWarnings } from '../domain/notifications/events/autostop-warning.js';
import { notifyBuildFinished } from '../domain/notifications/events/build-outcomes.js';
import { sendFailedBuildsReport } from '../domain/notifications/events/failed-builds-report.js';

/** A running daemon. */
export interface Daemon {
  /** The base URL it listens on, e.g. `http://127.0.0.1:3000`. */
  readonly url: string;
  readonly app: FastifyInstance;
  readonly store: Store;
  readonly identity: DeploymentIdentity;
  /** Which replica of the deployment this process is; its built-in provisioner daemons are named after it. */
  readonly replica: ReplicaIdentity;
  /** Work on timers; tests run them by hand after moving the clock. */
  readonly tasks: DaemonTasks;
  /** The provisioner daemons running in this process. */
  readonly provisioners: BuiltinProvisioners;
  /** Where Prometheus scrapes `/metrics`, when `--prometheus-enable` is on; else empty. */
  readonly metricsUrl: string;
  /** Queues notifications to users; `tasks.notifications` sends them. */
  readonly notifications: NotificationQueue;
  /** Stops accepting connections, closes WebSockets and streams, gives requests in flight a moment, then closes the store; within SHUTDOWN_LIMIT_MS. */
  close(): Promise<void>;
}

/** The daemon's periodic work. */
export interface DaemonTasks {
  readonly entitlements: PeriodicTask;
  readonly userDormancy: PeriodicTask;
  readonly jobReaper: PeriodicTask;
  readonly autobuild: PeriodicTask;
  readonly healthCheck: PeriodicTask;
  /** Asks the release feed for a newer version; idle unless --update-check is on. */
  readonly updateCheck: PeriodicTask;
  /** Gives memory back when the daemon falls idle after a burst of work. */
  readonly memoryReclaimer: PeriodicTask;
  /** Warns owners of workspaces whose automatic stop is near (--notifications-autostop-warning). */
  readonly autostopWarning: PeriodicTask;
  /** Sends template administrators the week's failed builds, once a week. */
  readonly failedBuildsReport: PeriodicTask;
  /** Sends the notification queue's due messages. */
  readonly notifications: PeriodicTask;
  /** Deletes rows past their retention (--audit-logs-retention and the rest), hourly and at start. */
  readonly retention: PeriodicTask;
}

/** How often the idle memory reclaimer looks: a burst's memory comes back within two of these. */
const MEMORY_RECLAIM_INTERVAL_MS = 10_000;

/** How often entitlements are computed again, as the reference: licenses expire with time alone. */
const ENTITLEMENTS_INTERVAL_MS = 10 * 60_000;

/** How often workspace schedules are acted on. */
const AUTOBUILD_INTERVAL_MS = 60 * 1000;

/**
 * How often stalled provisioner jobs are looked for: often enough that a job whose daemon is gone
 * fails within a minute (it is orphaned after 45 s without news).
 */
const JOB_REAPER_INTERVAL_MS = 15 * 1000;

/** How often the release feed is asked for a newer version. */
const UPDATE_CHECK_INTERVAL_MS = 24 * 60 * 60 * 1000;

/** How often rows past their retention are purged. */
const RETENTION_INTERVAL_MS = 60 * 60 * 1000;

/** How often inactive users are looked for. */
const USER_DORMANCY_INTERVAL_MS = 15 * 60 * 1000;

/** How often deadlines coming near are looked for: a warning comes at most this late. */
const AUTOSTOP_WARNING_INTERVAL_MS = 60 * 1000;

/** How often the weekly report is looked at; it goes out once a week whichever replica finds it due. */
const FAILED_BUILDS_REPORT_INTERVAL_MS = 60 * 60 * 1000;

/** What a daemon needs beyond its settings. */
export interface DaemonDependencies {
  readonly logger: Logger;
  readonly clock?: Clock;
  /** A built web dashboard to serve instead of the one found beside the code (tests). */
  readonly dashboardDirectory?: string;
  /** Logs each request as --verbose does, without showing it in the deployment's values (tests keep the lines for a stall report). */
  readonly logRequests?: boolean;
}

/** Where the settings say the database is. */
export function databaseTarget(options: ResolvedOptions): DatabaseTarget {
  const { postgresUrl, dataDir } = options.values;
  return postgresUrl ? { kind: 'postgres', url: postgresUrl } : { kind: 'sqlite', file: join(dataDir, 'cove.db') };
}

/**
 * Opens and migrates the store, creates the deployment's identity on first start, builds the API
 * and listens. Anything that fails on the way closes what was opened.
 */
export async function startDaemon(options: ResolvedOptions, dependencies: DaemonDependencies): Promise<Daemon> {
  const { logger } = dependencies;
  // Certificate files are checked before anything opens: a wrong path fails at once, naming its option.
  if (options.values.tlsEnable) loadTlsCertificates(options.values);
  const target = databaseTarget(options);
  const tightened = securePrivateFiles(options.values.dataDir, target.kind === 'sqlite');
  if (tightened.length > 0) logger.warn({ paths: tightened }, 'made files of the data directory private to their owner');
  if (process.env[WEAK_HASHES_VARIABLE] === '1')
    logger.warn({ variable: WEAK_HASHES_VARIABLE }, 'new password hashes are weak, for tests: unset this variable outside the test suite');
  const replica = loadReplicaIdentity(options.values.dataDir);
  await snapshotBeforeMigrating(target, logger);
  const store = await Store.open(target, dependencies.clock ?? systemClock);
  let exportWriter: { close(): void } | undefined;
  try {
    const eventExport = openEventExport(options.values, logger);
    exportWriter = eventExport;
    store.eventExport = eventExport.eventExport;
    const migration = await store.migrate();
    if (migration.applied.length > 0) logger.info({ applied: migration.applied }, 'database migrated');
    // Before anything reads or writes a token: refuses keys that cannot read the tokens stored.
    await installTokenKeys(store, options.values.externalTokenEncryptionKeys);
    // First start runs before any request: there is no user whose subject could do it.
    const identity = await bootstrapDeployment(store.as(SYSTEM_SUBJECTS.bootstrap), store.clock.now());
    const values: { -readonly [K in keyof DeploymentValues]: DeploymentValues[K] } = { ...options.values };
    const mailer = createMailer(options.values);
    // Background tasks that tell users about events take `notifier.queue`, as routes take `context.notifications`.
    // Made before the jobs of the previous run are failed: their owners are told.
    const notifier = createNotifier(store, values, mailer, logger);
    // Events found by timers and job ends tell people through this; recipients are found as its own subject.
    const events: EventNotifier = {
      store: store.as(SYSTEM_SUBJECTS.notificationEvents),
      enqueuer: notifier.queue,
      warn: (error, event) => logger.warn({ err: error, event }, 'could not queue a notification'),
    };
    const jobFinished = (jobId: string) => void notifyBuildFinished(events, jobId);
    // Jobs this replica's built-in daemons held when it last stopped will never be reported on:
    // no user is asking, so the recovery's own subject fails them, before those daemons connect again.
    const orphaned = await failJobsOfPreviousRun(
      { store: store.as(SYSTEM_SUBJECTS.jobRecovery), pubsub: store.pubsub, jobFinished },
      builtinDaemonIdPrefix(replica),
    );
    if (orphaned > 0) logger.warn({ count: orphaned, replica: replica.name }, 'failed provisioner jobs left running by the previous run');
    // Connections are logged by the deployment, not by whoever connects (an anonymous public app has nobody).
    const connectionLog = new ConnectionLogger(store.as(SYSTEM_SUBJECTS.connectionLogger), replica.id, store.clock);
    // Connections this replica relayed when it last stopped ended with it, unrecorded.
    const leftOpen = await connectionLog.closeLeftOpen();
    if (leftOpen > 0) logger.warn({ count: leftOpen, replica: replica.name }, 'closed connection log rows left open by the previous run');
    const connectedDaemons = new ConnectedDaemons();
    // Lives only in this process: the built-in provisioner daemons present it to their own server.
    const builtinProvisionerKey = randomAlphanumeric(43);
    // The daemon's own copy: a default access URL is only known once the port is bound.
    const relay = new AgentRelay();
    // Entitlements are the deployment's own state, computed from every license whoever uploaded it.
    const entitlements = new EntitlementsService(
      store.as(SYSTEM_SUBJECTS.entitlements),
      trustedLicenseKeys(options.values.licensePublicKeys),
      store.features,
      () => store.clock.now(),
    );
    await entitlements.refresh();
    // Another replica changed the licenses: compute again here too.
    const stopEntitlementEvents = await store.pubsub.subscribe(ENTITLEMENTS_CHANNEL, (origin) => {
      if (origin === entitlements.origin) return;
      entitlements.refresh().catch((error: unknown) => logger.error({ err: error }, 'could not compute entitlements'));
    });
    // A change made on another replica while this one was not listening was missed: compute again.
    const stopEntitlementResume = store.pubsub.onResume(() => {
      entitlements.refresh().catch((error: unknown) => logger.error({ err: error }, 'could not compute entitlements'));
    });
    const health = new HealthChecker({
      store,
      relay,
      accessUrl: () => values.accessUrl,
      databaseThresholdMs: options.values.healthCheckThresholdDatabaseMs,
      refreshMs: options.values.healthCheckRefreshMs,
    });
    const metrics: PrometheusMetrics | undefined = options.values.prometheusEnable
      ? await createPrometheusMetrics({ store, relay, logger, timeouts: httpServerTimeouts(options.values) })
      : undefined;
    const updateChecker = new UpdateChecker(options.values.updateCheckUrl);
    const app = await buildApp(
      {
        store,
        values,
        sources: options.sources,
        identity,
        rateLimits: createRateLimits(options.values, store.clock),
        mailer,
        builtinProvisionerKey,
        checkSchedule: weeklyScheduleProblem,
        relay,
        usage: new UsageRecorder(store),
        templateExamples: builtInTemplateExamples,
        connectedDaemons,
        entitlements,
        health,
        observer: metrics?.observer,
        updateCheck: () => updateChecker.latest(),
        externalAuthOAuth: new OAuthClient({ clock: store.clock }),
        notifications: notifier.queue,
        connectionLog,
      },
      { logger, logRequests: dependencies.logRequests ?? options.values.verbose, dashboardDirectory: dependencies.dashboardDirectory },
    );
    // Real time, not the daemon's clock: it compares CPU used with time passed.
    const reclaimer = new IdleMemoryReclaimer(performance.now());
    const tasks: DaemonTasks = {
      notifications: notifier.task,
      memoryReclaimer: new PeriodicTask(
        'idle-memory-reclaimer',
        MEMORY_RECLAIM_INTERVAL_MS,
        async () => {
          if (await reclaimer.check(performance.now())) logger.debug('collected garbage while idle');
        },
        logger,
      ),
      entitlements: new PeriodicTask(
        'entitlements',
        ENTITLEMENTS_INTERVAL_MS,
        async () => {
          // Licenses expire with time alone: nobody asks for that.
          await entitlements.refresh();
        },
        logger,
      ),
      userDormancy: new PeriodicTask(
        'user-dormancy',
        USER_DORMANCY_INTERVAL_MS,
        async () => {
          // A timer, not a user, decides that nobody has been seen for a while.
          const dormancy = store.as(SYSTEM_SUBJECTS.userDormancy);
          const count = await markInactiveUsersDormant(dormancy, store.clock.now(), options.values.userDormancyThresholdMs);
          if (count > 0) logger.info({ count }, 'marked inactive users dormant');
        },
        logger,
      ),
      autobuild: new PeriodicTask(
        'autobuild',
        AUTOBUILD_INTERVAL_MS,
        async () => {
          // Nobody asks for these builds, and a suspended owner's workspaces must still stop: no user's
          // subject fits, so the executor acts as its own minimal system subject.
          const result = await runAutobuild(store.as(SYSTEM_SUBJECTS.autobuild), store.pubsub, store.clock.now(), store.features, events);
          for (const build of result.builds) logger.info(build, 'autobuild queued a build');
          for (const failure of result.errors) logger.warn(failure, 'autobuild could not build a workspace');
        },
        logger,
      ),
      healthCheck: new PeriodicTask(
        'health-check',
        options.values.healthCheckRefreshMs,
        async () => {
          const { report } = await health.refresh();
          if (!report.healthy) logger.warn({ severity: report.severity }, 'the health check found problems: see /debug/health');
        },
        logger,
      ),
      updateCheck: new PeriodicTask(
        'update-check',
        options.values.updateCheck ? UPDATE_CHECK_INTERVAL_MS : 0,
        async () => {
          if (!options.values.updateCheck) return;
          const { result, newlyAvailable } = await updateChecker.check();
          if (newlyAvailable)
            logger.info({ version: result.version, url: result.url }, `a newer version of cove is available: ${result.version}`);
        },
        logger,
      ),
      retention: new PeriodicTask(
        'retention',
        RETENTION_INTERVAL_MS,
        async () => {
          // Age alone decides what goes, and nobody asks: the purger's own subject may only delete.
          const purged = await purgeExpired(store.as(SYSTEM_SUBJECTS.purger), store.clock.now(), options.values);
          if (Object.keys(purged).length > 0) logger.info({ purged }, 'purged rows past their retention');
        },
        logger,
      ),
      jobReaper: new PeriodicTask(
        'job-reaper',
        JOB_REAPER_INTERVAL_MS,
        async () => {
          // Hung jobs have no user to act for: the reaper's own subject may only read and fail jobs.
          const count = await reapHungJobs(
            { store: store.as(SYSTEM_SUBJECTS.jobReaper), pubsub: store.pubsub, connected: connectedDaemons, jobFinished },
            store.clock.now(),
          );
          if (count > 0) logger.warn({ count }, 'failed provisioner jobs that stopped making progress');
        },
        logger,
      ),
      autostopWarning: new PeriodicTask(
        'autostop-warning',
        AUTOSTOP_WARNING_INTERVAL_MS,
        async () => {
          // A deadline coming near is no one's request: the events subject finds the workspaces and owners.
          await queueAutostopWarnings(events, store.clock.now(), options.values.notificationsAutostopWarningMs);
        },
        logger,
      ),
      failedBuildsReport: new PeriodicTask(
        'failed-builds-report',
        FAILED_BUILDS_REPORT_INTERVAL_MS,
        async () => {
          await sendFailedBuildsReport(events, store.clock.now());
        },
        logger,
      ),
    };
    applyHttpsPolicy(app.server, options, () => values.accessUrl);
    // An empty --http-address serves HTTPS alone (tls-checks.ts refuses it without --tls-enable).
    const [host, port] = options.values.httpAddress === '' ? ['', 0] : splitHostPort(options.values.httpAddress, '--http-address');
    const httpUrl = host === '' ? await app.ready().then(() => '') : await app.listen({ host, port, backlog: listenBacklog() });
    const tls = options.values.tlsEnable ? await listenTls(app.server, options.values, logger).catch(closeApp(app)) : undefined;
    const url = httpUrl || (tls?.url ?? '');
    // With the default access URL and a random port (`:0`), agents must dial the port actually bound.
    if (options.sources.accessUrl === 'default') values.accessUrl = tls?.url ?? url;
    // Other replicas relay streams to the agents connected here through this address.
    relay.localUrl = options.values.relayUrl || url;
    logger.info(
      { url, tls_url: tls?.url, access_url: values.accessUrl, database: target.kind === 'sqlite' ? target.file : 'postgres' },
      'cove is listening',
    );
    const metricsUrl = metrics ? await metrics.listen(options.values.prometheusAddress).catch(closeApp(app)) : '';
    if (metricsUrl) logger.info({ url: `${metricsUrl}/metrics` }, 'serving Prometheus metrics');
    for (const task of Object.values(tasks)) task.start();
    // The release feed is asked at start too, not only a day later; in the background, so start-up never waits on it.
    if (options.values.updateCheck) void tasks.updateCheck.runNow();
    // A deployment that was down, or restarts often, still purges: once at start, in the background.
    void tasks.retention.runNow();
    const provisioners = startBuiltinProvisioners({
      url,
      count: options.values.provisionerDaemons,
      key: builtinProvisionerKey,
      dataDir: options.values.dataDir,
      replica,
      logger,
    });
    return {
      url,
      app,
      store,
      identity,
      replica,
      tasks,
      provisioners,
      metricsUrl,
      notifications: notifier.queue,
      // Each step is bounded (graceful-shutdown.ts): stopping ends within SHUTDOWN_LIMIT_MS whatever is open.
      close: async () => {
        const beside = [provisioners.stop(), ...Object.values(tasks).map((task) => task.stop()), stopEntitlementEvents(), metrics?.close()];
        stopEntitlementResume();
        await within(Promise.all(beside), SHUTDOWN_STEPS_MS.beside, 'provisioner daemons, tasks and metrics', logger);
        const tlsClosed = tls?.close();
        await within(app.close(), SHUTDOWN_STEPS_MS.api, 'the API and its connections', logger);
        if (tlsClosed) await within(tlsClosed, SHUTDOWN_STEPS_MS.api, 'the HTTPS listener', logger);
        // The ends of the connections the API just closed are written before the database goes.
        await within(
          connectionLog.flush().then(() => store.close()),
          SHUTDOWN_STEPS_MS.database,
          'the database',
          logger,
        );
        eventExport.close();
      },
    };
  } catch (error) {
    exportWriter?.close();
    await store.close();
    throw error;
  }
}

/** Closes the listening app when a later step of start-up fails, then fails on. */
function closeApp(app: FastifyInstance): (error: unknown) => Promise<never> {
  return async (error) => {
    await app.close();
    throw error;
  };
}
