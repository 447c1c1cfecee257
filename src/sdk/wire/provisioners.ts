import { Type, type Static } from '@sinclair/typebox';
import { DateTime, Nullable, Uuid } from './common.js';
import { ProvisionerJobStatus } from './templates.js';

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

/** A daemon's running or last job, as the reference names it. */
export const ProvisionerDaemonJob = Type.Object({
  id: Uuid,
  status: ProvisionerJobStatus,
  template_name: Type.String(),
  template_display_name: Type.String(),
  template_icon: Type.String(),
});

export const ProvisionerDaemon = Type.Object({
  id: Uuid,
  organization_id: Uuid,
  /** The key it connected with; the built-in daemons' is the reserved built-in key id, as the reference's. */
  key_id: Uuid,
  key_name: Type.String(),
  created_at: DateTime,
  last_seen_at: Type.Optional(DateTime),
  name: Type.String(),
  version: Type.String(),
  api_version: Type.String(),
  provisioners: Type.Array(Type.String()),
  tags: Type.Record(Type.String(), Type.String()),
  status: ProvisionerDaemonStatus,
  /** The job it runs now, null when idle; the last job it finished, null before its first. */
  current_job: Nullable(ProvisionerDaemonJob),
  previous_job: Nullable(ProvisionerDaemonJob),
});
export type ProvisionerDaemonJob = Static<typeof ProvisionerDaemonJob>;
export type ProvisionerDaemon = Static<typeof ProvisionerDaemon>;
