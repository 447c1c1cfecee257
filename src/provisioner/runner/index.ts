export { runJob, type JobIo, type JobReport, type RunnerLogger } from './job-runner.js';
export { startProvisionerDaemon, type ProvisionerDaemonHandle, type ProvisionerDaemonOptions } from './provisioner-daemon.js';
export type { ReconnectBackoff } from '../../lib/reconnect.js';
