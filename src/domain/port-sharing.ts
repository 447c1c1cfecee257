import { HttpProblem } from '../lib/errors.js';
import type { ShareLevel } from '../sdk/wire/index.js';
import { SHARE_LEVELS } from '../sdk/wire/share-levels.js';

export { SHARE_LEVELS, type ShareLevel };

/**
 * A new template's `max_port_share_level` when its creator names none: `public`, no cap, as the
 * reference's open-source edition has it (docs/decisions.md says why).
 */
export const DEFAULT_MAX_PORT_SHARE_LEVEL: ShareLevel = 'public';

/** The body of a port share upsert. */
export interface PortShareInput {
  readonly agent_name: string;
  readonly port: number;
  readonly share_level: string;
  readonly protocol?: string | undefined;
}

/**
 * Checks a port share against the reference's rules, in its order: a shareable level (removing a
 * share is how a port goes back to owner-only), a port in 9–65535, http or https, within the
 * template's maximum, and an agent of the workspace's latest build.
 */
export function checkPortShare(
  input: PortShareInput,
  templateMax: string,
  agentNames: readonly string[],
): { level: ShareLevel; protocol: 'http' | 'https' } {
  const level = input.share_level as ShareLevel;
  if (!SHARE_LEVELS.includes(level) || level === 'owner') {
    throw new HttpProblem(400, 'Port sharing level not allowed.', {
      validations: [
        { field: 'share_level', detail: 'must be organization, authenticated or public; delete the share to make the port private again' },
      ],
    });
  }
  if (!Number.isInteger(input.port) || input.port < 9 || input.port > 65535) {
    throw new HttpProblem(400, 'Port must be between 9 and 65535.', {
      validations: [{ field: 'port', detail: 'must be between 9 and 65535' }],
    });
  }
  const protocol = input.protocol || 'http';
  if (protocol !== 'http' && protocol !== 'https') {
    throw new HttpProblem(400, 'Port protocol not allowed.', { validations: [{ field: 'protocol', detail: 'must be http or https' }] });
  }
  const max = SHARE_LEVELS.indexOf(templateMax as ShareLevel);
  if (SHARE_LEVELS.indexOf(level) > max) {
    throw new HttpProblem(400, `Port sharing level not allowed. Max level is '${templateMax}'.`, {
      detail: "The template's max_port_share_level caps how widely its workspaces may share ports.",
      validations: [{ field: 'share_level', detail: `above the template's maximum "${templateMax}"` }],
    });
  }
  if (!agentNames.includes(input.agent_name)) {
    throw new HttpProblem(400, 'Agent not found.', {
      validations: [{ field: 'agent_name', detail: `no agent "${input.agent_name}" in the latest build` }],
    });
  }
  return { level, protocol };
}
