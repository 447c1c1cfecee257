import { Type, type Static } from '@sinclair/typebox';
import { Uuid } from './common.js';

/** Where workspace apps and terminals are reached; Cove has the one primary region, the deployment itself. */
export const Region = Type.Object({
  id: Uuid,
  name: Type.String(),
  display_name: Type.String(),
  icon_url: Type.String(),
  healthy: Type.Boolean(),
  path_app_url: Type.String(),
  wildcard_hostname: Type.String(),
});
export type Region = Static<typeof Region>;

export const RegionsResponse = Type.Object({ regions: Type.Array(Region) });
export type RegionsResponse = Static<typeof RegionsResponse>;
