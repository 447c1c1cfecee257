import type { Command } from 'commander';
import { CliError } from '../cli-error.js';
import type { CommandContext, CommandSpec } from '../command.js';
import { confirm, yesOption } from '../confirm.js';
import { printJson } from '../output.js';
import { DATABASE_OPTIONS, onDatabase } from './offline-database.js';
import { stringOption } from './templates-common.js';

type DaemonModule = typeof import('../../daemon/index.js');
type Report = Awaited<ReturnType<DaemonModule['deleteEncryptedTokens']>>;
type Cipher = ReturnType<DaemonModule['dbcryptCipher']>;

/** A comma-separated list of base64 keys, as the flags and their variables give them. */
function keyList(options: Readonly<Record<string, unknown>>, key: string): string[] {
  return (stringOption(options, key) ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/** The cipher of the keys given; a key that is not base64 of 32 bytes is refused before anything is asked. */
async function cipherOf(keys: readonly { readonly text: string; readonly label: string }[]): Promise<Cipher> {
  const daemon = await import('../../daemon/index.js');
  try {
    return daemon.dbcryptCipher(keys);
  } catch (error) {
    if (error instanceof daemon.TokenKeysError) throw new CliError(error.message);
    throw error;
  }
}

/** Prints what the command did: the report under `-o json`, else a sentence. */
function report(context: CommandContext, result: Report, done: string): void {
  if (context.json) {
    printJson(context.io, { links: result.links, revoked_keys: result.revokedKeys, active_key: result.activeKey });
    return;
  }
  context.say(done);
  context.say(result.revokedKeys.length > 0 ? `Revoked keys: ${result.revokedKeys.join(', ')}.` : 'No key was revoked.');
}

const links = (count: number): string => `${count} ${count === 1 ? 'link' : 'links'}`;

const rotateCommand: CommandSpec = {
  name: 'rotate',
  summary: 'Encrypt every stored token with a new key, and revoke the old keys',
  description:
    "Re-encrypts the OAuth tokens of external auth links in the daemon's database with --new-key, opening them " +
    'with --new-key or one of --old-keys, a batch of links per transaction; then revokes the old keys, which the ' +
    'daemon refuses from then on. Tokens stored as plain text are encrypted too. Start the daemons with the new ' +
    'key first (--external-token-encryption-keys NEW,OLD) so that what they write meanwhile uses it; afterwards ' +
    'the new key alone is enough.',
  options: [
    {
      flags: '--new-key <key>',
      env: 'COVE_EXTERNAL_TOKEN_ENCRYPTION_ENCRYPT_NEW_KEY',
      description: 'The new key: base64 of 32 bytes (required)',
    },
    {
      flags: '--old-keys <keys>',
      env: 'COVE_EXTERNAL_TOKEN_ENCRYPTION_ENCRYPT_OLD_KEYS',
      description: 'The keys tokens are encrypted with now, comma-separated base64',
    },
    ...DATABASE_OPTIONS,
    yesOption,
  ],
  examples: [
    'cove server dbcrypt rotate --new-key "$(openssl rand -base64 32)" --old-keys "$OLD_KEY" --data-dir /var/lib/cove',
    'cove server dbcrypt rotate --new-key "$NEW_KEY" --postgres-url postgres://cove@db/cove -y -o json',
  ],
  async run(context, _args, options) {
    const newKey = stringOption(options, 'newKey');
    if (!newKey) throw new CliError('--new-key is required.', { hint: 'See "cove server dbcrypt rotate --help".' });
    const oldKeys = keyList(options, 'oldKeys');
    const cipher = await cipherOf([
      { text: newKey, label: '--new-key' },
      ...oldKeys.map((text, index) => ({ text, label: `key ${index + 1} of --old-keys` })),
    ]);
    const [, ...old] = cipher.keyIds;
    await confirm(
      context,
      `Encrypt every external auth token with key ${cipher.activeKeyId}` +
        (old.length > 0 ? `, opening them with keys ${old.join(', ')}, and revoke those keys?` : '?'),
      { yes: options['yes'] === true, action: 'Rotating the token encryption key', canceled: 'no token was changed' },
    );
    const result = await onDatabase(context, options, (daemon, location) => daemon.rotateTokenEncryption(location, cipher));
    report(context, result, `Encrypted the tokens of ${links(result.links)} with key ${cipher.activeKeyId}.`);
    return 0;
  },
};

const decryptCommand: CommandSpec = {
  name: 'decrypt',
  summary: 'Store every token as plain text again, and revoke the keys',
  description:
    "Decrypts the OAuth tokens of external auth links in the daemon's database with --keys, a batch of links per " +
    'transaction, and revokes those keys: the daemon then starts without --external-token-encryption-keys. Stop ' +
    'the daemons first, or they keep encrypting what they write.',
  options: [
    {
      flags: '--keys <keys>',
      env: 'COVE_EXTERNAL_TOKEN_ENCRYPTION_DECRYPT_KEYS',
      description: 'The keys tokens are encrypted with, comma-separated base64 (required)',
    },
    ...DATABASE_OPTIONS,
    yesOption,
  ],
  examples: ['cove server dbcrypt decrypt --keys "$KEY" --data-dir /var/lib/cove', 'cove server dbcrypt decrypt --keys "$KEY1,$KEY2" -y'],
  async run(context, _args, options) {
    const keys = keyList(options, 'keys');
    if (keys.length === 0) throw new CliError('--keys is required.', { hint: 'See "cove server dbcrypt decrypt --help".' });
    const cipher = await cipherOf(keys.map((text, index) => ({ text, label: `key ${index + 1} of --keys` })));
    await confirm(context, 'Store every external auth token as plain text, and revoke the keys?', {
      yes: options['yes'] === true,
      action: 'Decrypting the stored tokens',
      canceled: 'no token was changed',
    });
    const result = await onDatabase(context, options, (daemon, location) => daemon.decryptTokenEncryption(location, cipher));
    report(context, result, `Stored the tokens of ${links(result.links)} as plain text.`);
    return 0;
  },
};

const deleteCommand: CommandSpec = {
  name: 'delete',
  summary: 'Delete every encrypted token (THIS CANNOT BE UNDONE), and revoke the keys',
  description:
    "Deletes the external auth links whose tokens are encrypted from the daemon's database, and revokes every " +
    'key: for when a key is lost. Their users link those providers again. Tokens stored as plain text are kept.',
  options: [...DATABASE_OPTIONS, yesOption],
  examples: ['cove server dbcrypt delete --data-dir /var/lib/cove', 'cove server dbcrypt delete --postgres-url postgres://cove@db/cove -y'],
  async run(context, _args, options) {
    await confirm(context, 'Delete every encrypted external auth token? Their users will have to link again.', {
      yes: options['yes'] === true,
      action: 'Deleting the encrypted tokens',
      canceled: 'nothing was deleted',
    });
    const result = await onDatabase(context, options, (daemon, location) => daemon.deleteEncryptedTokens(location));
    report(context, result, `Deleted ${links(result.links)} with encrypted tokens.`);
    return 0;
  },
};

/** `cove server dbcrypt`: the encryption of the tokens the daemon keeps, worked on in its database. */
export const dbcryptCommand: CommandSpec = {
  name: 'dbcrypt',
  summary: 'Manage the encryption of stored tokens',
  description:
    "Works on the OAuth tokens of external auth links in the daemon's database (see --external-token-encryption-keys " +
    'of "cove serve"): encrypt them with a new key, store them as plain text again, or delete them.',
  subcommands: [rotateCommand, decryptCommand, deleteCommand],
  async configure(command: Command) {
    // `serve` hands this group the database flags it took (see serve.ts): hand them on once more.
    command.hook('preSubcommand', (group, subcommand) => {
      for (const key of ['postgresUrl', 'dataDir']) {
        const value: unknown = group.getOptionValue(key);
        if (value !== undefined) subcommand.setOptionValue(key, value);
      }
    });
  },
};
