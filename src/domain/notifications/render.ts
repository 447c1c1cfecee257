import type { NotificationKind } from './catalogue.js';

/** A kind's text with its labels filled in: what every method sends. */
export interface RenderedNotification {
  readonly title: string;
  readonly body: string;
  readonly actions: readonly { readonly label: string; readonly url: string }[];
}

/**
 * Fills `{{name}}` in `text` with the label `name`; `{{access_url}}` and `{{user}}` come from the
 * deployment and the recipient unless the labels give them. A placeholder without a value is left
 * empty rather than shown as braces to the reader.
 */
export function fillLabels(text: string, labels: Readonly<Record<string, string>>): string {
  return text.replace(/\{\{\s*([A-Za-z0-9_.]+)\s*\}\}/g, (_, name: string) => labels[name] ?? '');
}

/** The kind's title, body and actions for one recipient. */
export function renderNotification(
  kind: NotificationKind,
  labels: Readonly<Record<string, string>>,
  context: { readonly accessUrl: string; readonly userName: string },
): RenderedNotification {
  const all = { access_url: context.accessUrl.replace(/\/+$/, ''), user: context.userName, ...labels };
  return {
    title: fillLabels(kind.title, all),
    body: fillLabels(kind.body, all),
    actions: kind.actions.map((action) => ({ label: fillLabels(action.label, all), url: fillLabels(action.url, all) })),
  };
}
