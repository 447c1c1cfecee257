import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { quietHoursProblem, quietHoursSummary, type QuietHoursSettings } from '../../domain/schedule/index.js';
import { HttpProblem } from '../../lib/errors.js';
import { isUuid } from '../../lib/random.js';
import {
  TERMINAL_FONT_NAMES,
  UpdateUserAppearanceSettingsRequest,
  UpdateUserPreferenceSettingsRequest,
  UserAppearanceSettings,
  UserParameter,
  UserPreferenceSettings,
  UserQuietHoursScheduleResponse,
  UpdateUserQuietHoursScheduleRequest,
} from '../../sdk/wire/index.js';
import type { ApiContext } from '../context.js';
import { loadPathResources, pathResource } from '../path-resources.js';
import { authOf, requireAuthentication } from '../plugins/authentication.js';
import { UserParam } from './users.js';

const AutofillQuery = Type.Object({ template_id: Type.Optional(Type.String()) });

/**
 * `GET`/`PUT /users/{user}/appearance`, `/users/{user}/preferences` and `/users/{user}/quiet-hours`:
 * what a user chose for their dashboard and for when their workspaces may be stopped.
 */
export async function userSettingsRoutes(app: FastifyInstance, context: ApiContext): Promise<void> {
  requireAuthentication(app, context);
  loadPathResources(app);
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.get('/users/:user/appearance', { schema: { params: UserParam, response: { 200: UserAppearanceSettings } } }, async (request) =>
    authOf(request).store.userSettings.appearance(pathResource(request, 'user').id),
  );

  api.put(
    '/users/:user/appearance',
    { schema: { params: UserParam, body: UpdateUserAppearanceSettingsRequest, response: { 200: UserAppearanceSettings } } },
    async (request) => {
      const { theme_preference: theme, terminal_font: font } = request.body;
      if (theme === '') {
        throw new HttpProblem(400, 'Validation failed.', { validations: [{ field: 'theme_preference', detail: 'A theme is required.' }] });
      }
      if (font !== undefined && !(TERMINAL_FONT_NAMES as readonly string[]).includes(font)) {
        throw new HttpProblem(400, 'Unsupported font family.');
      }
      const settings = authOf(request).store.userSettings;
      const userId = pathResource(request, 'user').id;
      // A client that predates terminal fonts sends the theme alone: the font chosen stays.
      const terminalFont = font ?? (await settings.appearance(userId)).terminal_font;
      return settings.setAppearance(userId, { theme_preference: theme, terminal_font: terminalFont });
    },
  );

  api.get('/users/:user/preferences', { schema: { params: UserParam, response: { 200: UserPreferenceSettings } } }, async (request) =>
    authOf(request).store.userSettings.preferences(pathResource(request, 'user').id),
  );

  api.put(
    '/users/:user/preferences',
    { schema: { params: UserParam, body: UpdateUserPreferenceSettingsRequest, response: { 200: UserPreferenceSettings } } },
    async (request) => authOf(request).store.userSettings.setPreferences(pathResource(request, 'user').id, request.body),
  );

  const quietHours: QuietHoursSettings = {
    defaultSchedule: context.values.defaultQuietHoursSchedule,
    allowUserCustom: context.values.allowCustomQuietHours,
  };
  const answerQuietHours = (stored: string): UserQuietHoursScheduleResponse => {
    const summary = quietHoursSummary(quietHours, stored, context.store.clock.now());
    return {
      raw_schedule: summary.rawSchedule,
      user_set: summary.userSet,
      user_can_set: summary.userCanSet,
      time: summary.time,
      timezone: summary.timezone,
      next: summary.next.toISOString(),
    };
  };

  api.get(
    '/users/:user/quiet-hours',
    { schema: { params: UserParam, response: { 200: UserQuietHoursScheduleResponse } } },
    async (request) => answerQuietHours(pathResource(request, 'user').quiet_hours_schedule),
  );

  api.put(
    '/users/:user/quiet-hours',
    { schema: { params: UserParam, body: UpdateUserQuietHoursScheduleRequest, response: { 200: UserQuietHoursScheduleResponse } } },
    async (request) => {
      if (!quietHours.allowUserCustom) {
        throw new HttpProblem(403, 'This deployment does not let users set their own quiet hours.', {
          detail: 'Everyone has the default schedule (--allow-custom-quiet-hours is false).',
        });
      }
      const schedule = request.body.schedule.trim();
      const problem = schedule === '' ? undefined : quietHoursProblem(schedule);
      if (problem) {
        throw new HttpProblem(400, 'Invalid quiet hours schedule.', {
          validations: [{ field: 'schedule', detail: `parse daily schedule "${schedule}": ${problem.detail}` }],
          ...(problem.part === 'timezone' && { detail: 'The schedule names a timezone that does not exist.' }),
        });
      }
      // Stored empty, a reset follows the deployment default wherever it moves later.
      const updated = await authOf(request).store.users.update(pathResource(request, 'user').id, 'personal', {
        quiet_hours_schedule: schedule,
      });
      return answerQuietHours(updated.quiet_hours_schedule);
    },
  );

  // The create form starts from the values the user gave this template's parameters last time.
  api.get(
    '/users/:user/autofill-parameters',
    { schema: { params: UserParam, querystring: AutofillQuery, response: { 200: Type.Array(UserParameter) } } },
    async (request) => {
      const templateId = request.query.template_id ?? '';
      if (!isUuid(templateId)) {
        throw new HttpProblem(400, 'Invalid or missing template_id parameter.');
      }
      return authOf(request).store.userSettings.autofillParameters(pathResource(request, 'user').id, templateId);
    },
  );
}
