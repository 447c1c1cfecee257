import { NETWORKING_GROUP } from './networking.js';
import type { OptionDefinition, OptionGroup } from './option-types.js';

/** The TLS section of `--help` and of the YAML file; its keys are the reference's. */
export const TLS_GROUP: OptionGroup = {
  name: 'TLS',
  yaml: 'tls',
  description: 'HTTPS served by the daemon itself. Behind a reverse proxy that terminates TLS, or on a private link, these can stay off.',
};

/** The minimum versions `--tls-min-version` accepts, as the reference spells them. */
export const TLS_MIN_VERSIONS = ['tls10', 'tls11', 'tls12', 'tls13'] as const;

/** The client certificate policies `--tls-client-auth` accepts, as the reference spells them. */
export const TLS_CLIENT_AUTH_POLICIES = ['none', 'request', 'require-any', 'verify-if-given', 'require-and-verify'] as const;

/** What the TLS options resolve to. */
export interface TlsValues {
  readonly tlsEnable: boolean;
  readonly tlsAddress: string;
  readonly tlsCertFiles: readonly string[];
  readonly tlsKeyFiles: readonly string[];
  readonly tlsClientCaFile: string;
  readonly tlsClientAuth: string;
  readonly tlsMinVersion: string;
  readonly tlsCiphers: readonly string[];
  readonly tlsAllowInsecureCiphers: boolean;
  readonly redirectToAccessUrl: boolean;
  readonly strictTransportSecurity: number;
  readonly strictTransportSecurityOptions: readonly string[];
  readonly tlsRedirectHttp: boolean;
  readonly tlsClientCertFile: string;
  readonly tlsClientKeyFile: string;
}

/** The TLS options, in `--help` order. */
export const TLS_OPTIONS: readonly OptionDefinition<keyof TlsValues>[] = [
  {
    key: 'tlsEnable',
    name: 'TLS Enable',
    flag: 'tls-enable',
    env: 'COVE_TLS_ENABLE',
    yaml: 'enable',
    group: TLS_GROUP,
    configPath: ['tls', 'enable'],
    kind: 'bool',
    default: 'false',
    description: 'Serve HTTPS on --tls-address, with the certificates of --tls-cert-file and --tls-key-file.',
  },
  {
    key: 'tlsAddress',
    name: 'TLS Address',
    flag: 'tls-address',
    env: 'COVE_TLS_ADDRESS',
    yaml: 'address',
    group: TLS_GROUP,
    configPath: ['tls', 'address'],
    kind: 'string',
    default: '127.0.0.1:3443',
    description: 'Address and port to listen on for HTTPS; use port 0 for a random free port.',
  },
  {
    key: 'tlsCertFiles',
    name: 'TLS Certificate Files',
    flag: 'tls-cert-file',
    env: 'COVE_TLS_CERT_FILE',
    yaml: 'certFiles',
    group: TLS_GROUP,
    configPath: ['tls', 'cert_file'],
    kind: 'string-array',
    default: '',
    description:
      "PEM certificate files, one per name served; the one a client asks for by name (SNI) answers, else the first. Put an intermediate CA's certificate after the server's in the same file. Read again on SIGHUP.",
  },
  {
    key: 'tlsClientCaFile',
    name: 'TLS Client CA Files',
    flag: 'tls-client-ca-file',
    env: 'COVE_TLS_CLIENT_CA_FILE',
    yaml: 'clientCAFile',
    group: TLS_GROUP,
    configPath: ['tls', 'client_ca_file'],
    kind: 'string',
    default: '',
    description: 'PEM file of the certificate authorities that client certificates are checked against (see --tls-client-auth).',
  },
  {
    key: 'tlsClientAuth',
    name: 'TLS Client Auth',
    flag: 'tls-client-auth',
    env: 'COVE_TLS_CLIENT_AUTH',
    yaml: 'clientAuth',
    group: TLS_GROUP,
    configPath: ['tls', 'client_auth'],
    kind: 'string',
    default: 'none',
    description:
      'Whether clients must present a certificate: "none", "request" (asked, not checked), "require-any" (any certificate), "verify-if-given" (checked when given) or "require-and-verify" (a certificate signed by --tls-client-ca-file).',
  },
  {
    key: 'tlsKeyFiles',
    name: 'TLS Key Files',
    flag: 'tls-key-file',
    env: 'COVE_TLS_KEY_FILE',
    yaml: 'keyFiles',
    group: TLS_GROUP,
    configPath: ['tls', 'key_file'],
    kind: 'string-array',
    default: '',
    description: 'PEM private key files, one for each of --tls-cert-file, in the same order. Read again on SIGHUP.',
  },
  {
    key: 'tlsMinVersion',
    name: 'TLS Minimum Version',
    flag: 'tls-min-version',
    env: 'COVE_TLS_MIN_VERSION',
    yaml: 'minVersion',
    group: TLS_GROUP,
    configPath: ['tls', 'min_version'],
    kind: 'string',
    default: 'tls12',
    description: 'Oldest TLS version accepted: "tls10", "tls11", "tls12" or "tls13".',
  },
  {
    key: 'tlsCiphers',
    name: 'TLS Ciphers',
    flag: 'tls-ciphers',
    env: 'COVE_TLS_CIPHERS',
    yaml: 'tlsCiphers',
    group: TLS_GROUP,
    configPath: ['tls', 'supported_ciphers'],
    kind: 'string-array',
    default: '',
    description:
      'TLS 1.2 cipher suites allowed, by their IANA names (such as TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256); empty for the secure default set. TLS 1.3 suites are always the secure ones.',
  },
  {
    key: 'tlsAllowInsecureCiphers',
    name: 'TLS Allow Insecure Ciphers',
    flag: 'tls-allow-insecure-ciphers',
    env: 'COVE_TLS_ALLOW_INSECURE_CIPHERS',
    yaml: 'tlsAllowInsecureCiphers',
    group: TLS_GROUP,
    configPath: ['tls', 'allow_insecure_ciphers'],
    kind: 'bool',
    default: 'false',
    description: 'Let --tls-ciphers name suites without forward secrecy or with CBC (such as TLS_RSA_WITH_AES_128_CBC_SHA).',
  },
  {
    key: 'redirectToAccessUrl',
    name: 'Redirect to Access URL',
    flag: 'redirect-to-access-url',
    env: 'COVE_REDIRECT_TO_ACCESS_URL',
    yaml: 'redirectToAccessURL',
    group: NETWORKING_GROUP,
    configPath: ['redirect_to_access_url'],
    kind: 'bool',
    default: 'false',
    description:
      'Answer requests for another host than the access URL, and plain HTTP requests when the access URL is https, with a redirect to the access URL. Requests to a loopback address and /healthz are never redirected.',
  },
  {
    key: 'strictTransportSecurity',
    name: 'Strict-Transport-Security',
    flag: 'strict-transport-security',
    env: 'COVE_STRICT_TRANSPORT_SECURITY',
    yaml: 'strictTransportSecurity',
    group: TLS_GROUP,
    configPath: ['strict_transport_security'],
    kind: 'int',
    default: '0',
    description:
      'Seconds browsers keep to HTTPS for this host once seen (the max-age of the Strict-Transport-Security header on HTTPS answers); 0 sends no header.',
  },
  {
    key: 'strictTransportSecurityOptions',
    name: 'Strict-Transport-Security Options',
    flag: 'strict-transport-security-options',
    env: 'COVE_STRICT_TRANSPORT_SECURITY_OPTIONS',
    yaml: 'strictTransportSecurityOptions',
    group: TLS_GROUP,
    configPath: ['strict_transport_security_options'],
    kind: 'string-array',
    default: '',
    description: 'Added to the Strict-Transport-Security header: "includeSubDomains" and/or "preload". Needs --strict-transport-security.',
  },
  {
    key: 'tlsRedirectHttp',
    name: 'Redirect HTTP to HTTPS',
    flag: 'tls-redirect-http-to-https',
    env: 'COVE_TLS_REDIRECT_HTTP_TO_HTTPS',
    yaml: 'redirectHTTP',
    group: TLS_GROUP,
    configPath: ['tls', 'redirect_http'],
    kind: 'bool',
    default: 'true',
    hidden: true,
    description: 'Deprecated: use --redirect-to-access-url. When set, it turns that option on or off.',
  },
  {
    key: 'tlsClientCertFile',
    name: 'TLS Client Cert File',
    flag: 'tls-client-cert-file',
    env: 'COVE_TLS_CLIENT_CERT_FILE',
    yaml: 'clientCertFile',
    group: TLS_GROUP,
    configPath: ['tls', 'client_cert_file'],
    kind: 'string',
    default: '',
    hidden: true,
    description:
      "Read from the reference's configuration files and shown in the deployment config; the daemon's own requests do not present it.",
  },
  {
    key: 'tlsClientKeyFile',
    name: 'TLS Client Key File',
    flag: 'tls-client-key-file',
    env: 'COVE_TLS_CLIENT_KEY_FILE',
    yaml: 'clientKeyFile',
    group: TLS_GROUP,
    configPath: ['tls', 'client_key_file'],
    kind: 'string',
    default: '',
    hidden: true,
    description:
      "Read from the reference's configuration files and shown in the deployment config; the daemon's own requests do not present it.",
  },
];
