import { HttpProblem } from './errors.js';

/**
 * A change to another user who holds roles the caller could not assign: nobody acts on a user
 * above them. A 403 that names those roles, so the caller knows who must make the change.
 */
export class OutrankedError extends HttpProblem {
  readonly roles: readonly string[];

  constructor(roles: readonly string[]) {
    super(403, `You cannot change a user who holds roles you cannot assign: ${roles.join(', ')}`, {
      detail:
        "Only someone who could assign every role a user holds may change that user's password, sign-in, roles, status, profile, " +
        'keys or memberships, delete them, or create workspaces for them.',
    });
    this.name = 'OutrankedError';
    this.roles = roles;
  }
}
