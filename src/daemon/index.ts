export { startDaemon, databaseTarget, type Daemon, type DaemonDependencies } from './daemon.js';
export { createLogger, silentLogger } from './logger.js';
export { runUntilSignal } from './run-until-signal.js';
export { createAdminUser, resetUserPassword, DatabaseUnavailableError, type OfflineUserResult } from './offline-user-admin.js';
export {
  OPTION_DEFINITIONS,
  OptionError,
  describeDefault,
  resolveOptions,
  type DeploymentValues,
  type OptionDefinition,
  type RawValues,
  type ResolvedOptions,
} from '../domain/deployment-options.js';
export {
  dbcryptCipher,
  rotateTokenEncryption,
  decryptTokenEncryption,
  deleteEncryptedTokens,
  TokenKeysError,
  type TokenRewrapReport,
} from './dbcrypt.js';
export { backupDatabase, restoreDatabase, BackupRefusedError, type BackupReport, type RestoreReport } from './database-backup.js';
