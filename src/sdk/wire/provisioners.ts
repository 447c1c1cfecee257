import { Type, type Static } from '@sinclair/typebox';
import { DateTime, Uuid } from './common.js';

/** Wire shapes of provisioner daemons and the keys that let them connect. */

export const ProvisionerKey = Type.Object({
  id: Uuid,
  created_at: DateTime,
  organization: Uuid,
  name: Type.String(),
  tags: Type.Record(Type.String(), Type.String()),
});
export type ProvisionerKey = Static<typeof ProvisionerKey>;

export const CreateProvisionerKeyRequest = Type.Object({
  /** Bounded as the reference bounds it; the name is indexed, and an index entry has a size limit. */
  name: Type.String({ minLength: 1, maxLength: 64 }),
  tags: Type.Optional(Type.Record(Type.String(), Type.String())),
});
export type CreateProvisionerKeyRequest = Static<typeof CreateProvisionerKeyRequest>;

export const CreateProvisionerKeyResponse = Type.Object({ key: Type.String() });
export type CreateProvisionerKeyResponse = Static<typeof CreateProvisionerKeyResponse>;

export const ProvisionerDaemonStatus = Type.Union([Type.Literal('offline'), Type.Literal('idle'), Type.Literal('busy')]);

const JobSummary = Type.Object({
  id: Uuid,
  status: Type.String(),
  template_name: Type.String(),
  template_display_name: Type.String(),
  template_icon: Type.String(),
});

export const ProvisionerDaemon = Type.Object({
  id: Uuid,
  organization_id: Uuid,
  key_id: Type.Optional(Uuid),
  key_name: Type.Optional(Type.String()),
  created_at: DateTime,
  last_seen_at: Type.Optional(DateTime),
  name: Type.String(),
  version: Type.String(),
  api_version: Type.String(),
  provisioners: Type.Array(Type.String()),
  tags: Type.Record(Type.String(), Type.String()),
  status: ProvisionerDaemonStatus,
  current_job: Type.Optional(JobSummary),
  previous_job: Type.Optional(JobSummary),
});
export type ProvisionerDaemon = Static<typeof ProvisionerDaemon>;
