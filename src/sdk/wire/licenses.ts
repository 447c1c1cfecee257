import { Type, type Static } from '@sinclair/typebox';

export const License = Type.Object({
  id: Type.Integer(),
  uuid: Type.String(),
  uploaded_at: Type.String({ format: 'date-time' }),
  claims: Type.Record(Type.String(), Type.Unknown()),
});
export type License = Static<typeof License>;

export const AddLicenseRequest = Type.Object({ license: Type.String() });

export const FeatureState = Type.Object({
  entitlement: Type.Union([Type.Literal('entitled'), Type.Literal('grace_period'), Type.Literal('not_entitled')]),
  enabled: Type.Boolean(),
  limit: Type.Optional(Type.Integer()),
  actual: Type.Optional(Type.Integer()),
});

export const Entitlements = Type.Object({
  features: Type.Record(Type.String(), FeatureState),
  warnings: Type.Array(Type.String()),
  errors: Type.Array(Type.String()),
  has_license: Type.Boolean(),
  trial: Type.Boolean(),
  require_telemetry: Type.Boolean(),
  refreshed_at: Type.String({ format: 'date-time' }),
});
export type Entitlements = Static<typeof Entitlements>;
