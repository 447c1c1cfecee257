import type { RelayMap } from '../sdk/wire/index.js';

/** The name of the daemon's own relay region, which agent latencies are keyed by. */
export const RELAY_REGION_NAME = 'Cove Embedded Relay';
/** The short code of that region. */
export const RELAY_REGION_CODE = 'cove';
/** The region id the reference gives its embedded relay. */
export const EMBEDDED_REGION_ID = 999;

/**
 * The relay map clients are given: one region, the daemon itself at the access URL. Cove has no
 * direct connections and no STUN, so there is nothing else to list.
 */
export function relayMap(accessUrl: string): RelayMap {
  const url = new URL(accessUrl);
  const https = url.protocol === 'https:';
  return {
    homeParams: { regionScore: {} },
    omitDefaultRegions: true,
    regions: {
      [String(EMBEDDED_REGION_ID)]: {
        embeddedRelay: true,
        regionID: EMBEDDED_REGION_ID,
        regionCode: RELAY_REGION_CODE,
        regionName: RELAY_REGION_NAME,
        avoid: false,
        nodes: [
          {
            name: `${EMBEDDED_REGION_ID}b`,
            regionID: EMBEDDED_REGION_ID,
            hostName: url.hostname,
            certName: '',
            ipv4: '',
            ipv6: '',
            stunport: -1,
            stunonly: false,
            derpport: url.port ? Number(url.port) : https ? 443 : 80,
            insecureForTests: false,
            forceHTTP: !https,
            stuntestIP: '',
            canPort80: false,
          },
        ],
      },
    },
  };
}
