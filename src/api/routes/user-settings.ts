import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { HttpProblem } from '../../lib/errors.js';
import { isUuid } from '../../lib/random.js';
import {
  TERMINAL_FONT_NAMES,
  UpdateUserAppearanceSettingsRequest,
  UpdateUserPreferenceSettingsRequest,
  UserAppearanceSettings,
  UserParameter,
  UserPreferenceSettings,
} from '../../sdk/wire/index.js';
import type { ApiContext } from '../context.js';
import { loadPathResources, pathResource } from '../path-resources.js';
import { authOf, requireAuthentication } from '../plugins/authentication.js';
import { UserParam } from './users.js';

const AutofillQuery = Type.Object({ template_id: Type.Optional(Type.String()) });

/** `GET`/`PUT /users/{user}/appearance` and `/users/{user}/preferences`: what a user chose for their dashboard. */
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
