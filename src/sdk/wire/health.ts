import { Type, type Static } from '@sinclair/typebox';
import { DateTime, Uuid } from './common.js';
import { ProvisionerDaemon } from './provisioners.js';

/** The names of the health report's sections, as `dismissed_healthchecks` spells them. */
export const HEALTH_SECTIONS = ['AccessURL', 'Database', 'Websocket', 'DERP', 'ProvisionerDaemons', 'WorkspaceProxy'] as const;
export type HealthSection = (typeof HEALTH_SECTIONS)[number];

/** How bad a finding is, ordered ok < warning < error. */
export const HealthSeverity = Type.Union([Type.Literal('ok'), Type.Literal('warning'), Type.Literal('error')]);
export type HealthSeverity = Static<typeof HealthSeverity>;

/** A finding with its code (`EDB02`, `EPD01`, ...) and what it means here. */
export const HealthMessage = Type.Object({ code: Type.String(), message: Type.String() });
export type HealthMessage = Static<typeof HealthMessage>;

/**
 * A section's error, `CODE: message`. Left out when there is none: the reference's server sends a
 * `*string` with `omitempty`, so an empty `error` never reaches its clients.
 */
const SectionError = Type.Optional(Type.String());

/** What every section of the report has. */
const sectionFields = {
  dismissed: Type.Boolean(),
  healthy: Type.Boolean(),
  severity: HealthSeverity,
  warnings: Type.Array(HealthMessage),
  error: SectionError,
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

/**
 * A relay node as the report names it: Tailscale's `tailcfg.DERPNode`, whose fields have no JSON
 * names, so the reference's server sends the Go names. The ones marked `omitempty` there are left
 * out when empty.
 */
export const HealthRelayNode = Type.Object({
  Name: Type.String(),
  RegionID: Type.Integer(),
  HostName: Type.String(),
  CertName: Type.Optional(Type.String()),
  IPv4: Type.Optional(Type.String()),
  IPv6: Type.Optional(Type.String()),
  STUNPort: Type.Optional(Type.Integer()),
  STUNOnly: Type.Optional(Type.Boolean()),
  DERPPort: Type.Optional(Type.Integer()),
  InsecureForTests: Type.Optional(Type.Boolean()),
  ForceHTTP: Type.Optional(Type.Boolean()),
  STUNTestIP: Type.Optional(Type.String()),
  CanPort80: Type.Optional(Type.Boolean()),
});
export type HealthRelayNode = Static<typeof HealthRelayNode>;

/** A relay region as the report names it: `tailcfg.DERPRegion`, in its Go names as well. */
export const HealthRelayRegion = Type.Object({
  EmbeddedRelay: Type.Boolean(),
  RegionID: Type.Integer(),
  RegionCode: Type.String(),
  RegionName: Type.String(),
  Avoid: Type.Optional(Type.Boolean()),
  Nodes: Type.Array(HealthRelayNode),
});
export type HealthRelayRegion = Static<typeof HealthRelayRegion>;

/** One relay node's check: two clients through it, and whether they could exchange messages. */
export const RelayNodeReport = Type.Object({
  healthy: Type.Boolean(),
  severity: HealthSeverity,
  warnings: Type.Array(HealthMessage),
  error: SectionError,
  node: HealthRelayNode,
  /** The relay's rate limit (`derp.ServerInfoMessage`, Go names); zero is none. */
  node_info: Type.Object({ TokenBucketBytesPerSecond: Type.Integer(), TokenBucketBytesBurst: Type.Integer() }),
  can_exchange_messages: Type.Boolean(),
  round_trip_ping: Type.String(),
  round_trip_ping_ms: Type.Integer(),
  uses_websocket: Type.Boolean(),
  client_logs: Type.Array(Type.Array(Type.String())),
  client_errs: Type.Array(Type.Array(Type.String())),
  /** Go names, and `Error` null rather than empty, as the reference's `STUNReport` marshals. */
  stun: Type.Object({ Enabled: Type.Boolean(), CanSTUN: Type.Boolean(), Error: Type.Union([Type.String(), Type.Null()]) }),
});
export type RelayNodeReport = Static<typeof RelayNodeReport>;

export const RelayRegionReport = Type.Object({
  healthy: Type.Boolean(),
  severity: HealthSeverity,
  warnings: Type.Array(HealthMessage),
  error: SectionError,
  region: HealthRelayRegion,
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
  /** Why the network check failed; left out when it did not, as the reference's `omitempty`. */
  netcheck_err: Type.Optional(Type.String()),
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
