/**
 * What a queued message carries: the text as rendered when it was queued, the labels it was
 * rendered from, and what each method needs of the recipient. Stored as JSON in the message's row.
 */
export interface NotificationPayload {
  readonly kind_id: string;
  readonly kind_name: string;
  readonly title: string;
  readonly body: string;
  readonly actions: readonly { readonly label: string; readonly url: string }[];
  readonly labels: Readonly<Record<string, string>>;
  readonly targets: readonly string[];
  readonly user_id: string;
  readonly user_email: string;
  readonly user_username: string;
  readonly user_name: string;
}

/** A stored payload back as an object; the notifier wrote it, so its shape is trusted. */
export function parsePayload(json: string): NotificationPayload {
  return JSON.parse(json) as NotificationPayload;
}
