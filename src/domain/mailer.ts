import { createTransport } from 'nodemailer';
import type { DeploymentValues } from './deployment-options.js';

/** One message: plain text, and an HTML alternative of the same text when `html` is given. */
export interface MailMessage {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  readonly html?: string;
}

/** Sends the daemon's mail. */
export interface Mailer {
  /** Whether an SMTP server is configured: without one every send fails. */
  readonly configured: boolean;
  send(message: MailMessage): Promise<void>;
}

/** Thrown when a mail is asked for but no SMTP server is configured. */
export class MailNotConfiguredError extends Error {
  constructor() {
    super('email delivery is not configured (set --email-smtp-host and --email-smtp-from)');
    this.name = 'MailNotConfiguredError';
  }
}

/** How long to wait for the server at each step; the daemon sends a handful of mails, never bulk. */
const SMTP_TIMEOUT_MS = 10_000;

/**
 * A mailer that delivers through the SMTP server the settings name (nodemailer: STARTTLS when the
 * server offers it, TLS from the first byte with --email-smtp-force-tls, AUTH when a user name is
 * set), or fails every send when none is set. Callers log a failure's message; it never holds the
 * message body, so a passcode in the text cannot reach the log.
 */
export function createMailer(values: DeploymentValues): Mailer {
  const { emailSmtpHost, emailSmtpFrom } = values;
  if (!emailSmtpHost || !emailSmtpFrom) {
    return { configured: false, send: async () => Promise.reject(new MailNotConfiguredError()) };
  }
  const forceTls = values.emailSmtpForceTls;
  // The reference's default ports: 25 for plain SMTP (nodemailer would pick 587), 465 for SMTPS.
  const address = splitHost(emailSmtpHost, forceTls ? 465 : 25);
  if (!address) return { configured: true, send: async () => Promise.reject(new Error(`"${emailSmtpHost}" is not a host:port`)) };
  const [host, port] = address;
  const transport = createTransport({
    host,
    port,
    secure: forceTls,
    name: hostOf(values.accessUrl),
    auth: values.emailSmtpUsername ? { user: values.emailSmtpUsername, pass: values.emailSmtpPassword } : undefined,
    connectionTimeout: SMTP_TIMEOUT_MS,
    greetingTimeout: SMTP_TIMEOUT_MS,
    socketTimeout: SMTP_TIMEOUT_MS,
    // Nothing is pooled: connections are opened per mail and closed after it.
    pool: false,
  });
  return {
    configured: true,
    send: async (message) => {
      await transport.sendMail({
        from: emailSmtpFrom,
        to: message.to,
        subject: message.subject,
        text: message.text,
        ...(message.html !== undefined ? { html: message.html } : {}),
      });
    },
  };
}

/** `host:port` or `[v6]:port` into its parts; a malformed setting fails each send rather than the daemon's start. */
function splitHost(hostPort: string, defaultPort: number): [string, number] | undefined {
  const match = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(hostPort.trim());
  if (!match?.[1]) return undefined;
  return [match[1].replace(/^\[|\]$/g, ''), match[2] ? Number(match[2]) : defaultPort];
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname || 'localhost';
  } catch {
    return 'localhost';
  }
}

/**
 * An HTML part made from plain text: every character escaped, paragraphs (blank-line separated) as
 * `<p>`, single line breaks as `<br>`, and the links after it as buttons. Made from the text
 * rather than written apart, so that both parts always say the same.
 */
export function htmlFromText(text: string, links: readonly { readonly label: string; readonly url: string }[] = []): string {
  const paragraphs = text
    .split(/\n{2,}/)
    .map((paragraph) => `<p>${escapeHtml(paragraph).replace(/\n/g, '<br>')}</p>`)
    .join('\n');
  const buttons = links.map((link) => `<p><a href="${escapeHtml(link.url)}">${escapeHtml(link.label)}</a></p>`).join('\n');
  return `<!doctype html>\n<html><body>\n${paragraphs}${buttons ? `\n${buttons}` : ''}\n</body></html>\n`;
}

/** Text as HTML that shows it as it is. */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
