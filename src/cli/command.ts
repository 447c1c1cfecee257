import type { Command } from 'commander';
import { CoveClient } from '../sdk/client.js';
import { CliError } from './cli-error.js';
import { readDurationFlag } from './duration-flag.js';
import { versionWarning } from './version-warning.js';
import { extraHeaders } from './extra-headers.js';
import { configDir, readSavedConfig, type SavedConfig } from './cli-config.js';
import type { CliIo } from './io.js';
import { chooseColumns, printData, printTable, type Column, type OutputFormat } from './output.js';
import { openSecretStore, type SecretStore } from './secret-store.js';

/** Options every command accepts. */
export interface GlobalOptions {
  readonly url?: string | undefined;
  readonly token?: string | undefined;
  readonly output: OutputFormat;
  readonly verbose: boolean;
  /** `--request-timeout` as typed; `COVE_REQUEST_TIMEOUT` and the default apply when undefined. */
  readonly requestTimeout?: string | undefined;
  /** `--header` values (`Name=value` or `Name: value`), sent on every request. */
  readonly headers?: readonly string[] | undefined;
  /** `--header-command`: a shell command whose output lines are more headers. */
  readonly headerCommand?: string | undefined;
  /** `--global-config`: where the CLI keeps its config and credentials. */
  readonly globalConfig?: string | undefined;
  /** False under `--no-version-warning`. */
  readonly versionWarning?: boolean | undefined;
  /** `--client-tls-ca-file`: a CA trusted for the deployment's certificate, beside the public ones built in. */
  readonly clientTlsCaFile?: string | undefined;
  /** `--client-tls-cert-file` and `--client-tls-key-file`: the client certificate presented. */
  readonly clientTlsCertFile?: string | undefined;
  readonly clientTlsKeyFile?: string | undefined;
}

/** How long a plain request may take when neither `--request-timeout` nor `COVE_REQUEST_TIMEOUT` says. */
export const DEFAULT_REQUEST_TIMEOUT = '30s';

/** An option of a command, as commander spells it. */
export interface OptionSpec {
  readonly flags: string;
  readonly description: string;
  readonly default?: string | boolean;
  /** The environment variable that sets the option when the flag is not given (`COVE_…`). */
  readonly env?: string;
}

/** A column as a command's help and `-c` know it. */
export interface ColumnName {
  readonly heading: string;
  readonly hidden?: boolean;
}

/** A positional argument of a command. */
export interface ArgumentSpec {
  readonly name: string;
  readonly description: string;
  readonly required?: boolean;
  readonly variadic?: boolean;
}

/**
 * A command declared as data: its names, arguments and options, and what it runs. Groups have
 * `subcommands` instead of `run`. `configure` adds what cannot be declared statically (the daemon's
 * option list for `serve`).
 */
export interface CommandSpec {
  readonly name: string;
  readonly aliases?: readonly string[];
  readonly summary: string;
  readonly description?: string;
  readonly arguments?: readonly ArgumentSpec[];
  readonly options?: readonly OptionSpec[];
  readonly subcommands?: readonly CommandSpec[];
  readonly examples?: readonly string[];
  /**
   * The columns of the table the command prints (a `Column` list fits), hidden ones included: they
   * give it `-c/--column` and are listed in its help. It prints through `context.printData`/`printTable`.
   */
  readonly columns?: readonly ColumnName[];
  readonly configure?: (command: Command) => Promise<void>;
  readonly run?: (context: CommandContext, args: readonly string[], options: Readonly<Record<string, unknown>>) => Promise<number | void>;
}

/** What a running command can reach: its streams, the global options, the saved config and the API. */
export class CommandContext {
  readonly io: CliIo;
  readonly global: GlobalOptions;
  readonly configDir: string;
  /** The columns `-c/--column` asked for; undefined for the default ones. */
  readonly columns: readonly string[] | undefined;
  #secrets: Promise<SecretStore> | undefined;
  #headers: Record<string, string> | undefined;

  constructor(io: CliIo, global: GlobalOptions, columns?: readonly string[]) {
    this.io = io;
    this.global = global;
    this.configDir = global.globalConfig || configDir(io.env);
    this.columns = columns;
  }

  /** The headers of `--header` and `--header-command`, worked out once (the command runs once). */
  headers(): Record<string, string> {
    this.#headers ??= extraHeaders(this.global.headers ?? [], this.global.headerCommand, this.io.env);
    return this.#headers;
  }

  /** Prints rows as JSON under `-o json`, else as a table of the chosen columns. */
  printData<T>(rows: readonly T[], columns: readonly Column<T>[]): void {
    printData(this.io, this.global.output, rows, this.json ? columns : chooseColumns(columns, this.columns));
  }

  /** Prints rows as a table of the chosen columns, whatever the output format (callers print JSON themselves). */
  printTable<T>(rows: readonly T[], columns: readonly Column<T>[]): void {
    printTable(this.io, rows, chooseColumns(columns, this.columns));
  }

  get json(): boolean {
    return this.global.output === 'json';
  }

  savedConfig(): SavedConfig {
    return readSavedConfig(this.configDir);
  }

  /** The keychain or the credentials file, opened once per command. */
  secrets(): Promise<SecretStore> {
    this.#secrets ??= openSecretStore(this.configDir, this.io.env);
    return this.#secrets;
  }

  /** The deployment URL: `--url`, then `COVE_URL`, then the one saved by `cove login`. */
  deploymentUrl(): string {
    const url = this.global.url ?? this.io.env['COVE_URL'] ?? this.savedConfig().url;
    if (!url) throw new CliError('No deployment URL is known.', { hint: 'Run "cove login <url>" first, or pass --url.' });
    return url;
  }

  /** The session token: `--token`, then `COVE_SESSION_TOKEN`, then the stored one for this deployment. */
  async sessionToken(url: string): Promise<string | undefined> {
    const given = this.global.token ?? this.io.env['COVE_SESSION_TOKEN'];
    if (given) return given;
    return (await this.secrets()).get(url);
  }

  /**
   * Milliseconds a plain request may take: `--request-timeout`, then `COVE_REQUEST_TIMEOUT`, then
   * 30 seconds; 0 for none. Streams are never limited (see ClientOptions.timeoutMs).
   */
  requestTimeoutMs(): number {
    const flag = this.global.requestTimeout;
    const text = flag ?? this.io.env['COVE_REQUEST_TIMEOUT'] ?? DEFAULT_REQUEST_TIMEOUT;
    const what = flag !== undefined ? '--request-timeout' : 'COVE_REQUEST_TIMEOUT';
    const ms = readDurationFlag(text.trim(), what);
    if (ms === undefined || ms < 0)
      throw new CliError(`${what}: "${text}" is not a duration.`, { hint: 'For example 30s or 2m; 0 waits for ever.' });
    return ms;
  }

  /** A client of `url` with this command's request timeout and headers, signed in with `token` when given. */
  newClient(url: string, token?: string): CoveClient {
    return new CoveClient({
      url,
      ...(token === undefined ? {} : { token }),
      timeoutMs: this.requestTimeoutMs(),
      headers: this.headers(),
    });
  }

  /** A client signed in to the deployment; fails with a clear message when nobody is signed in. */
  async client(): Promise<CoveClient> {
    const url = this.deploymentUrl();
    const token = await this.sessionToken(url);
    if (!token) throw new CliError(`You are not signed in to ${url}.`, { hint: `Run "cove login ${url}".` });
    return new CoveClient({
      url,
      token,
      timeoutMs: this.requestTimeoutMs(),
      headers: this.headers(),
      ...(this.global.versionWarning === false ? {} : { onServerVersion: versionWarning(this.configDir, this.io, url) }),
    });
  }

  /** Writes a line for people; suppressed under `-o json` so scripts get clean output. */
  say(line: string): void {
    if (!this.json) this.io.stdout.write(`${line}\n`);
  }
}
