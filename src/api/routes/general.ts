import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { AGENT_API_VERSION, PROVISIONER_API_VERSION, VERSION } from '../../lib/version.js';
import {
  AvailableExperiments,
  BuildInfo,
  DeploymentConfig,
  DeploymentStats,
  Experiments,
  Response,
  SshConfig,
  UpdateCheck,
} from '../../sdk/wire/index.js';
import { computeDeploymentStats } from '../../domain/deployment-stats.js';
import { toWireDeploymentConfig } from '../convert/deployment-config.js';
import { toWireDeploymentStats } from '../convert/deployment-stats.js';
import type { ApiContext } from '../context.js';
import { authOf, requireAuthentication } from '../plugins/authentication.js';
import { forbidden } from '../problems.js';
import { rateLimitHook } from '../plugins/rate-limit.js';

/** Experiments this build knows; none are needed yet, but the list is served as the spec asks. */
const AVAILABLE_EXPERIMENTS: readonly string[] = [];

/** The general and deployment endpoints that need no session. */
export async function publicGeneralRoutes(app: FastifyInstance, context: ApiContext): Promise<void> {
  app.addHook(
    'onRequest',
    rateLimitHook(context.rateLimits, (limits) => limits.api),
  );
  app.get('/', { schema: { response: { 200: Response } } }, async () => ({
    message: 'Cove API. See /api/v2/buildinfo, or run "cove login" to sign in.',
  }));

  app.get('/buildinfo', { schema: { response: { 200: BuildInfo } } }, async () => ({
    external_url: context.values.accessUrl,
    version: VERSION,
    dashboard_url: context.values.accessUrl,
    telemetry: false,
    workspace_proxy: false,
    agent_api_version: AGENT_API_VERSION,
    provisioner_api_version: PROVISIONER_API_VERSION,
    upgrade_message: '',
    deployment_id: context.identity.deploymentId,
  }));

  // Answered from the last check of the release feed, which runs in the background (--update-check).
  app.get('/updatecheck', { schema: { response: { 200: UpdateCheck } } }, async () => context.updateCheck());
}

/** The general and deployment endpoints that need a session. */
export async function authenticatedGeneralRoutes(app: FastifyInstance, context: ApiContext): Promise<void> {
  requireAuthentication(app, context);
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.post(
    '/csp/reports',
    { schema: { body: Type.Object({ 'csp-report': Type.Optional(Type.Record(Type.String(), Type.Unknown())) }) } },
    async (request, reply) => {
      request.log.warn({ csp_report: request.body['csp-report'] }, 'content security policy violation');
      return reply.code(200).send();
    },
  );

  app.get('/deployment/config', { schema: { response: { 200: DeploymentConfig } } }, async (request) => {
    const { store } = authOf(request);
    if (!store.can('read', { type: 'deployment_config' })) throw forbidden();
    return toWireDeploymentConfig(context.values, context.sources);
  });

  app.get('/deployment/stats', { schema: { response: { 200: DeploymentStats } } }, async (request) => {
    const { store } = authOf(request);
    if (!store.can('read', { type: 'deployment_stats' })) throw forbidden();
    return toWireDeploymentStats(await computeDeploymentStats(store, context.store.clock.now()));
  });

  app.get('/deployment/ssh', { schema: { response: { 200: SshConfig } } }, async () => ({
    hostname_prefix: context.values.sshHostnamePrefix,
    hostname_suffix: '',
    ssh_config_options: Object.fromEntries(
      context.values.sshConfigOptions.map((option) => {
        const [key = '', ...rest] = option.split('=');
        return [key.trim(), rest.join('=').trim()];
      }),
    ),
  }));

  app.get('/experiments', { schema: { response: { 200: Experiments } } }, async () =>
    context.values.experiments.includes('*') ? [...AVAILABLE_EXPERIMENTS] : [...context.values.experiments],
  );

  app.get('/experiments/available', { schema: { response: { 200: AvailableExperiments } } }, async () => ({
    safe: [...AVAILABLE_EXPERIMENTS],
  }));
}
