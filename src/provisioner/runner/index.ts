export { runJob, type JobIo, type JobReport, type RunnerLogger } from './job-runner.js';
export {
  startProvisionerDaemon,
  type ProvisionerDaemonHandle,
  type ProvisionerDaemonOptions,
  type ReconnectBackoff,
} from './provisioner-daemon.js';
