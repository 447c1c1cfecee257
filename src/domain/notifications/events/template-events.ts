import { createHash } from 'node:crypto';
import type { WorkspaceEventFacts } from '../../../store/authorized-store.js';
import type { TemplateRow, TemplateVersionRow, UserRow } from '../../../store/rows.js';
import type { NotificationRequest } from '../notification-request.js';
import { tell, templateLabel, type EventNotifier } from './event-notifier.js';

/** The site roles that look after templates: they hear of deleted templates and get the weekly report. */
export const TEMPLATE_ADMIN_ROLES: readonly string[] = ['owner', 'template-admin'];

/**
 * Tells each owner of a workspace on an older version of `template` that `version` is now its
 * active version: one message per owner and version, naming one of their workspaces. Never throws.
 */
export async function notifyWorkspacesOutOfDate(
  notifier: EventNotifier,
  template: TemplateRow,
  version: TemplateVersionRow,
): Promise<number> {
  return tell(notifier, 'workspace out of date', async () => {
    const behind = await notifier.store.notificationEvents.workspacesOfTemplate(template, version.id);
    return firstPerOwner(behind).map(({ workspace, owner }) => ({
      kind: 'workspaceOutOfDate' as const,
      userId: owner.id,
      labels: { template: templateLabel(template), version: version.name, workspace: workspace.name, owner: owner.username },
      targets: [workspace.id, owner.id, template.id, template.organization_id],
      createdBy: 'api-template-active-version',
      dedupeKey: `workspace-out-of-date:${owner.id}:${version.id}`,
    }));
  });
}

/**
 * Tells each owner of a workspace of `template` that it was deprecated, with its message: once per
 * owner and message (deprecating it again with the same words adds nothing). Never throws.
 */
export async function notifyTemplateDeprecated(notifier: EventNotifier, template: TemplateRow): Promise<number> {
  const message = template.deprecation_message;
  if (!message) return 0;
  const digest = createHash('sha256').update(message).digest('hex').slice(0, 16);
  return tell(notifier, 'template deprecated', async () => {
    const using = await notifier.store.notificationEvents.workspacesOfTemplate(template);
    return firstPerOwner(using).map(({ owner }) => ({
      kind: 'templateDeprecated' as const,
      userId: owner.id,
      labels: { template: templateLabel(template), templateName: template.name, message },
      targets: [template.id, template.organization_id],
      createdBy: 'api-template-deprecated',
      dedupeKey: `template-deprecated:${template.id}:${owner.id}:${digest}`,
    }));
  });
}

/**
 * Tells the deployment's owners and template administrators that `template` was deleted, except
 * whoever deleted it. Never throws.
 */
export async function notifyTemplateDeleted(notifier: EventNotifier, template: TemplateRow, initiator: UserRow): Promise<number> {
  return tell(notifier, 'template deleted', async () => {
    const admins = await notifier.store.notificationEvents.usersWithSiteRoles(TEMPLATE_ADMIN_ROLES);
    return admins
      .filter((admin) => admin.id !== initiator.id)
      .map((admin): NotificationRequest => ({
        kind: 'templateDeleted',
        userId: admin.id,
        labels: { template: templateLabel(template), initiator: initiator.username },
        targets: [template.id, template.organization_id],
        createdBy: 'api-template-deleted',
        dedupeKey: `template-deleted:${template.id}:${admin.id}`,
      }));
  });
}

/** One workspace per owner: the first of theirs in the list. */
function firstPerOwner(rows: readonly WorkspaceEventFacts[]): WorkspaceEventFacts[] {
  const seen = new Set<string>();
  return rows.filter((row) => {
    if (seen.has(row.owner.id)) return false;
    seen.add(row.owner.id);
    return true;
  });
}
