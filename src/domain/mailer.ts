import { sendMail, type MailMessage } from '../lib/smtp-client.js';
import type { DeploymentValues } from './deployment-options.js';

/** Sends the daemon's mail. */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
}

/** Thrown when a mail is asked for but no SMTP server is configured. */
export class MailNotConfiguredError extends Error {
  constructor() {
    super('email delivery is not configured (set --email-smtp-host and --email-smtp-from)');
    this.name = 'MailNotConfiguredError';
  }
}

/** A mailer that delivers through the SMTP server the settings name, or fails when none is set. */
export function createMailer(values: DeploymentValues): Mailer {
  const { emailSmtpHost, emailSmtpFrom } = values;
  if (!emailSmtpHost || !emailSmtpFrom) {
    return { send: async () => Promise.reject(new MailNotConfiguredError()) };
  }
  return {
    send: (message) =>
      sendMail(
        {
          host: emailSmtpHost,
          from: emailSmtpFrom,
          username: values.emailSmtpUsername,
          password: values.emailSmtpPassword,
          forceTls: values.emailSmtpForceTls,
          helloName: hostOf(values.accessUrl),
        },
        message,
      ),
  };
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname || 'localhost';
  } catch {
    return 'localhost';
  }
}
