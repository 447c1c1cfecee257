import type { OptionDefinition, OptionGroup } from './option-types.js';

/** The email section of `--help` and of the YAML file. */
export const EMAIL_GROUP: OptionGroup = {
  name: 'Email',
  yaml: 'email',
  description: 'How the daemon sends mail, such as one-time passcodes.',
};

/** What the email options resolve to. */
export interface EmailValues {
  readonly emailSmtpHost: string;
  readonly emailSmtpFrom: string;
  readonly emailSmtpUsername: string;
  readonly emailSmtpPassword: string;
  readonly emailSmtpForceTls: boolean;
}

/** The email options, in `--help` order. */
export const EMAIL_OPTIONS: readonly OptionDefinition<keyof EmailValues>[] = [
  {
    key: 'emailSmtpHost',
    name: 'SMTP Host',
    flag: 'email-smtp-host',
    env: 'COVE_EMAIL_SMTP_HOST',
    yaml: 'smtp_host',
    group: EMAIL_GROUP,
    configPath: ['notifications', 'email', 'smarthost'],
    kind: 'string',
    default: '',
    description: 'host:port of the SMTP server that delivers mail. When empty, no mail is sent.',
  },
  {
    key: 'emailSmtpFrom',
    name: 'SMTP From',
    flag: 'email-smtp-from',
    env: 'COVE_EMAIL_SMTP_FROM',
    yaml: 'smtp_from',
    group: EMAIL_GROUP,
    configPath: ['notifications', 'email', 'from'],
    kind: 'string',
    default: '',
    description: 'Sender address of outgoing mail, e.g. cove@example.com.',
  },
  {
    key: 'emailSmtpUsername',
    name: 'SMTP Username',
    flag: 'email-smtp-username',
    env: 'COVE_EMAIL_SMTP_USERNAME',
    yaml: 'smtp_username',
    group: EMAIL_GROUP,
    configPath: ['notifications', 'email', 'auth', 'username'],
    kind: 'string',
    default: '',
    description: 'User name for SMTP authentication (AUTH PLAIN); empty means no authentication.',
  },
  {
    key: 'emailSmtpPassword',
    name: 'SMTP Password',
    flag: 'email-smtp-password',
    env: 'COVE_EMAIL_SMTP_PASSWORD',
    yaml: 'smtp_password',
    group: EMAIL_GROUP,
    configPath: ['notifications', 'email', 'auth', 'password'],
    kind: 'string',
    default: '',
    secret: true,
    description: 'Password for SMTP authentication.',
  },
  {
    key: 'emailSmtpForceTls',
    name: 'SMTP Force TLS',
    flag: 'email-smtp-force-tls',
    env: 'COVE_EMAIL_SMTP_FORCE_TLS',
    yaml: 'smtp_force_tls',
    group: EMAIL_GROUP,
    configPath: ['notifications', 'email', 'force_tls'],
    kind: 'bool',
    default: 'false',
    description: 'Connect with TLS from the start (SMTPS, usually port 465) instead of upgrading with STARTTLS when offered.',
  },
];
