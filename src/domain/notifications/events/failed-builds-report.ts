import { NOTIFICATION_KINDS } from '../catalogue.js';
import type { NotificationRequest } from '../notification-request.js';
import { tell, templateLabel, timeLabel, type EventNotifier } from './event-notifier.js';
import { TEMPLATE_ADMIN_ROLES } from './template-events.js';

/** How often the report of failed builds goes out, and the period each covers. */
export const FAILED_BUILDS_REPORT_PERIOD_MS = 7 * 24 * 60 * 60 * 1000;

/** Failures listed in one report; the rest are counted. */
const LISTED_FAILURES = 10;

/**
 * Sends each owner and template administrator, per template with failed builds, the failed
 * builds of the period since the report last went out (a week, the first time). At most once a
 * period across replicas and retries: the run is claimed first (notification_report_runs), and
 * each message has a key of its own. Templates without failures are left out. Never throws;
 * returns how many messages were queued.
 */
export async function sendFailedBuildsReport(notifier: EventNotifier, now: Date): Promise<number> {
  return tell(notifier, 'weekly failed builds report', async () => {
    const kind = NOTIFICATION_KINDS.workspaceBuildsFailedReport;
    const since = await notifier.store.notificationEvents.claimReportRun(kind.id, now, FAILED_BUILDS_REPORT_PERIOD_MS);
    if (!since) return [];
    const outcomes = (await notifier.store.notificationEvents.buildOutcomes(since, now)).filter((entry) => entry.failed.length > 0);
    if (outcomes.length === 0) return [];
    const admins = await notifier.store.notificationEvents.usersWithSiteRoles(TEMPLATE_ADMIN_ROLES);
    return outcomes.flatMap(({ template, total, failed }) => {
      const lines = failed
        .slice(0, LISTED_FAILURES)
        .map(
          ({ workspace, build, owner, error }) =>
            `- ${owner.username}/${workspace.name} build ${build.build_number} (${build.transition}): ${error}`,
        );
      if (failed.length > LISTED_FAILURES) lines.push(`- and ${failed.length - LISTED_FAILURES} more`);
      return admins.map((admin): NotificationRequest => ({
        kind: 'workspaceBuildsFailedReport',
        userId: admin.id,
        labels: {
          template: templateLabel(template),
          templateName: template.name,
          failedBuilds: String(failed.length),
          totalBuilds: String(total),
          reportStart: timeLabel(since),
          reportEnd: timeLabel(now),
          failures: lines.join('\n'),
        },
        targets: [template.id, template.organization_id],
        createdBy: 'report-generator',
        dedupeKey: `workspace-builds-failed-report:${template.id}:${admin.id}:${since.toISOString()}`,
      }));
    });
  });
}
