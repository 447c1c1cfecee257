import { Type, type Static } from '@sinclair/typebox';
import { DateTime, Uuid } from './common.js';
import { ProvisionerDaemon } from './provisioners.js';
import { RelayNode, RelayRegion } from './relay-protocol.js';

/** The names of the health report's sections, as `dismissed_healthchecks` spells them. */
export const HEALTH_SECTIONS = ['AccessURL', 'Database', 'Websocket', 'DERP', 'ProvisionerDaemons', 'WorkspaceProxy'] as const;
export type HealthSection = (typeof HEALTH_SECTIONS)[number];

/** How bad a finding is, ordered ok < warning < error. */
export const HealthSeverity = Type.Union([Type.Literal('ok'), Type.Literal('warning'), Type.Literal('error')]);
export type HealthSeverity = Static<typeof HealthSeverity>;

/** A finding with its code (`EDB02`, `EPD01`, ...) and what it means here. */
export const HealthMessage = Type.Object({ code: Type.String(), message: Type.String() });
export type HealthMessage = Static<typeof HealthMessage>;

/** What every section of the report has. */
const sectionFields = {
  dismissed: Type.Boolean(),
  healthy: Type.Boolean(),
  severity: HealthSeverity,
  warnings: Type.Array(HealthMessage),
  error: Type.String(),
};

export const AccessUrlReport = Type.Object({
  ...sectionFields,
  access_url: Type.String(),
  healthz_response: Type.String(),
  reachable: Type.Boolean(),
  status_code: Type.Integer(),
});
export type AccessUrlReport = Static<typeof AccessUrlReport>;

export const DatabaseReport = Type.Object({
  ...sectionFields,
  latency: Type.String(),
  latency_ms: Type.Integer(),
  threshold_ms: Type.Integer(),
  reachable: Type.Boolean(),
});
export type DatabaseReport = Static<typeof DatabaseReport>;

export const WebsocketReport = Type.Object({ ...sectionFields, body: Type.String(), code: Type.Integer() });
export type WebsocketReport = Static<typeof WebsocketReport>;

/** One relay node's check: two clients through it, and whether they could exchange messages. */
export const RelayNodeReport = Type.Object({
  healthy: Type.Boolean(),
  severity: HealthSeverity,
  warnings: Type.Array(HealthMessage),
  error: Type.String(),
  node: RelayNode,
  node_info: Type.Object({ tokenBucketBytesPerSecond: Type.Integer(), tokenBucketBytesBurst: Type.Integer() }),
  can_exchange_messages: Type.Boolean(),
  round_trip_ping: Type.String(),
  round_trip_ping_ms: Type.Integer(),
  uses_websocket: Type.Boolean(),
  client_logs: Type.Array(Type.Array(Type.String())),
  client_errs: Type.Array(Type.Array(Type.String())),
  stun: Type.Object({ enabled: Type.Boolean(), canSTUN: Type.Boolean(), error: Type.String() }),
});
export type RelayNodeReport = Static<typeof RelayNodeReport>;

export const RelayRegionReport = Type.Object({
  healthy: Type.Boolean(),
  severity: HealthSeverity,
  warnings: Type.Array(HealthMessage),
  error: Type.String(),
  region: RelayRegion,
  node_reports: Type.Array(RelayNodeReport),
});
export type RelayRegionReport = Static<typeof RelayRegionReport>;

/** The network check of the reference, as far as a relay that is only WebSockets has one: no UDP, no STUN. */
export const Netcheck = Type.Object({
  UDP: Type.Boolean(),
  IPv4: Type.Boolean(),
  IPv6: Type.Boolean(),
  IPv4CanSend: Type.Boolean(),
  IPv6CanSend: Type.Boolean(),
  OSHasIPv6: Type.Boolean(),
  ICMPv4: Type.Boolean(),
  MappingVariesByDestIP: Type.Union([Type.Boolean(), Type.Null()]),
  HairPinning: Type.Union([Type.Boolean(), Type.Null()]),
  UPnP: Type.Union([Type.Boolean(), Type.Null()]),
  PMP: Type.Union([Type.Boolean(), Type.Null()]),
  PCP: Type.Union([Type.Boolean(), Type.Null()]),
  PreferredDERP: Type.Integer(),
  RegionLatency: Type.Record(Type.String(), Type.Integer()),
  RegionV4Latency: Type.Record(Type.String(), Type.Integer()),
  RegionV6Latency: Type.Record(Type.String(), Type.Integer()),
  GlobalV4: Type.String(),
  GlobalV6: Type.String(),
  CaptivePortal: Type.Union([Type.Boolean(), Type.Null()]),
});
export type Netcheck = Static<typeof Netcheck>;

export const RelayReport = Type.Object({
  ...sectionFields,
  regions: Type.Record(Type.String(), RelayRegionReport),
  netcheck: Netcheck,
  netcheck_err: Type.String(),
  netcheck_logs: Type.Array(Type.String()),
});
export type RelayReport = Static<typeof RelayReport>;

export const ProvisionerDaemonsReport = Type.Object({
  ...sectionFields,
  items: Type.Array(Type.Object({ provisioner_daemon: ProvisionerDaemon, warnings: Type.Array(HealthMessage) })),
});
export type ProvisionerDaemonsReport = Static<typeof ProvisionerDaemonsReport>;

/** A workspace proxy as the report lists it. Cove runs none, so the list is always empty. */
export const WorkspaceProxy = Type.Object({
  id: Uuid,
  name: Type.String(),
  display_name: Type.String(),
  icon_url: Type.String(),
  path_app_url: Type.String(),
  wildcard_hostname: Type.String(),
  version: Type.String(),
  created_at: DateTime,
  updated_at: DateTime,
  deleted: Type.Boolean(),
  derp_enabled: Type.Boolean(),
  derp_only: Type.Boolean(),
  healthy: Type.Boolean(),
  status: Type.Object({
    checked_at: DateTime,
    status: Type.String(),
    report: Type.Object({ errors: Type.Array(Type.String()), warnings: Type.Array(Type.String()) }),
  }),
});

export const WorkspaceProxyReport = Type.Object({
  ...sectionFields,
  workspace_proxies: Type.Object({ regions: Type.Array(WorkspaceProxy) }),
});
export type WorkspaceProxyReport = Static<typeof WorkspaceProxyReport>;

/** `GET /debug/health`. */
export const HealthReport = Type.Object({
  time: DateTime,
  healthy: Type.Boolean(),
  severity: HealthSeverity,
  service_version: Type.String(),
  /** The same version under the name the reference's dashboard reads it by. */
  coder_version: Type.String(),
  access_url: AccessUrlReport,
  database: DatabaseReport,
  websocket: WebsocketReport,
  derp: RelayReport,
  provisioner_daemons: ProvisionerDaemonsReport,
  workspace_proxy: WorkspaceProxyReport,
});
export type HealthReport = Static<typeof HealthReport>;

/** `GET` and `PUT /debug/health/settings`. */
export const HealthSettings = Type.Object({
  dismissed_healthchecks: Type.Array(Type.Union(HEALTH_SECTIONS.map((name) => Type.Literal(name)))),
});
export type HealthSettings = Static<typeof HealthSettings>;
