import { defaultDataDir } from './default-data-dir.js';
import type { OptionDefinition, OptionGroup } from './option-types.js';

/** The database section of `--help` and of the YAML file. */
export const DATABASE_GROUP: OptionGroup = { name: 'Database', yaml: 'database', description: 'Where the daemon keeps its state.' };

/** What the database options resolve to. */
export interface DatabaseValues {
  readonly dataDir: string;
  readonly postgresUrl: string;
}

/** The database options, in `--help` order. */
export const DATABASE_OPTIONS: readonly OptionDefinition<keyof DatabaseValues>[] = [
  {
    key: 'dataDir',
    name: 'Data Directory',
    flag: 'data-dir',
    env: 'COVE_DATA_DIR',
    yaml: 'data_dir',
    group: DATABASE_GROUP,
    configPath: ['data_dir'],
    kind: 'string',
    default: defaultDataDir(),
    description: 'Directory that holds the embedded database and other state.',
  },
  {
    key: 'postgresUrl',
    name: 'PostgreSQL Connection URL',
    flag: 'postgres-url',
    env: 'COVE_PG_CONNECTION_URL',
    yaml: 'postgres_url',
    group: DATABASE_GROUP,
    configPath: ['pg_connection_url'],
    kind: 'string',
    default: '',
    secret: true,
    description: 'URL of a PostgreSQL database. When empty, the embedded SQLite database in the data directory is used.',
  },
];
