import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { MAX_DURATION_MS } from '../../lib/duration.js';

/** Wire schemas shared by many endpoints. Field names are exactly those of the API spec. */

export const Uuid = Type.String({ format: 'uuid' });

/** A duration setting in milliseconds, bounded so that deadlines computed from it stay real dates. */
export const DurationMs = Type.Integer({ maximum: MAX_DURATION_MS });
export const DateTime = Type.String({ format: 'date-time' });

/** A field the spec lists that is always present, `null` where there is no value. */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const ValidationError = Type.Object({ field: Type.String(), detail: Type.String() });
export type ValidationError = Static<typeof ValidationError>;

/** The body of every error and of plain acknowledgements. */
export const Response = Type.Object({
  message: Type.String(),
  detail: Type.Optional(Type.String()),
  validations: Type.Optional(Type.Array(ValidationError)),
});
export type Response = Static<typeof Response>;

/** A build transition, as the spec names them: what builds, provisioners and schedules speak of. */
export const WorkspaceTransition = Type.Union([Type.Literal('start'), Type.Literal('stop'), Type.Literal('delete')]);
export type WorkspaceTransition = Static<typeof WorkspaceTransition>;

/** A role as other objects refer to it; a site role names no organization (left out, as the reference does). */
export const SlimRole = Type.Object({
  name: Type.String(),
  display_name: Type.String(),
  organization_id: Type.Optional(Type.String()),
});
export type SlimRole = Static<typeof SlimRole>;
