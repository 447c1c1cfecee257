import { StoreFamily } from './store-family.js';
import { withConflicts } from '../db-errors.js';
import { apiKeyObject, orgMemberObject, siteObject, userObject } from '../../rbac/index.js';
import * as users from '../queries/users.js';
import * as externalSignIn from '../queries/external-sign-in.js';
import * as signInFailures from '../queries/sign-in-failures.js';
import type { AuditChange } from '../audit/audit-request.js';

/** A change to a user's own account, as its audit entry names it. */
function userChange(action: string, user: users.UserRow, before: object | undefined, after: object | undefined): AuditChange {
  return { resourceType: 'user', action, resourceId: user.id, resourceTarget: user.username, userId: user.id, old: before, new: after };
}

/** Sign-in: passwords, throttling, external links and sign-in state. */
export class SignInStore extends StoreFamily {
  /**
   * Replaces a password with one set through a passcode, if the user still holds the passcode that
   * was checked, and ends all their keys. Needs `update_personal` on the user and `delete` on their keys.
   */
  async resetPasswordWithPasscode(user: users.UserRow, hashedPassword: string): Promise<boolean> {
    this.require('update_personal', userObject(user.id));
    this.require('delete', apiKeyObject(user.id));
    const reset = await this.audited(
      (trx) =>
        users.resetPasswordWithPasscode(trx, {
          userId: user.id,
          hashedPasscode: user.hashed_one_time_passcode ?? '',
          hashedPassword,
          now: this.store.nowIso(),
        }),
      // The hashes only say that the password changed: the entry keeps neither (see audit-diff.ts).
      (done) =>
        done
          ? userChange(
              'write',
              user,
              { hashed_password: user.hashed_password, hashed_one_time_passcode: user.hashed_one_time_passcode },
              { hashed_password: hashedPassword, hashed_one_time_passcode: null },
            )
          : undefined,
    );
    if (reset) await this.store.invalidateSessions({ userId: user.id });
    return reset;
  }

  /**
   * Stores a one-time passcode (its hash) for a user who asked to reset their password, with the
   * `request_password_reset` entry in the same transaction. Needs `update_personal` on the user.
   */
  async storePasscode(user: users.UserRow, hashedPasscode: string, expiresAt: string): Promise<void> {
    this.require('update_personal', userObject(user.id));
    await this.audited(
      (trx) =>
        users.updateUser(trx, user.id, {
          hashed_one_time_passcode: hashedPasscode,
          one_time_passcode_expires_at: expiresAt,
          updated_at: this.store.nowIso(),
        }),
      () =>
        userChange(
          'request_password_reset',
          user,
          { hashed_one_time_passcode: user.hashed_one_time_passcode, one_time_passcode_expires_at: user.one_time_passcode_expires_at },
          { hashed_one_time_passcode: hashedPasscode, one_time_passcode_expires_at: expiresAt },
        ),
    );
    await this.store.invalidateSessions({ userId: user.id });
  }

  /**
   * Records a refused password sign-in (`login` with the answer's status, 401): of the user the
   * e-mail names, or of nobody. Changes nothing else; needs `update` on the site's system rows, as
   * counting the attempt does.
   */
  async recordFailedSignIn(user: users.UserRow | undefined, statusCode: number): Promise<void> {
    this.require('update', siteObject('system'));
    await this.audited(
      async () => undefined,
      () => ({
        resourceType: 'api_key',
        action: 'login',
        resourceId: '',
        resourceTarget: user?.username ?? '',
        userId: user?.id ?? null,
        statusCode,
      }),
    );
  }

  /** Records that the first user registered (the account itself is the users family's); needs `create` on that user. */
  async recordRegistration(user: users.UserRow): Promise<void> {
    this.require('create', userObject(user.id));
    await this.audited(
      async () => undefined,
      () => ({ ...userChange('register', user, undefined, { username: user.username, email: user.email }), statusCode: 201 }),
    );
  }

  /**
   * Replaces the password hash that just verified with a new hash of the same password, made at
   * today's cost; false when the user's password changed meanwhile. Needs `update_personal` on the user.
   */
  async rehashPassword(user: users.UserRow, hashedPassword: string): Promise<boolean> {
    this.require('update_personal', userObject(user.id));
    const changed = await users.rehashPassword(this.db, { userId: user.id, checkedHash: user.hashed_password, hashedPassword });
    // Cached sessions carry the user's row; the next request reads the new one.
    if (changed) await this.store.invalidateSessions({ userId: user.id });
    return changed;
  }

  /**
   * Counts a sign-in attempt against an account before its secret is checked, or says until when
   * the account's attempts wait (see the query). Needs `update` on the site's system rows.
   */
  async claimAttempt(
    account: string,
    pacing: { readonly backoffMs: (failures: number) => number; readonly forgetAfterMs: number },
  ): Promise<signInFailures.AttemptClaim> {
    this.require('update', siteObject('system'));
    const now = this.store.clock.now().getTime();
    return signInFailures.claimSignInAttempt(this.db, account, {
      now: new Date(now).toISOString(),
      forgetBefore: new Date(now - pacing.forgetAfterMs).toISOString(),
      blockedUntil: (failures) => new Date(now + pacing.backoffMs(failures)).toISOString(),
    });
  }

  /** Forgets an account's failed sign-ins after a success; needs `update` on the site's system rows. */
  async forgetFailures(account: string): Promise<void> {
    this.require('update', siteObject('system'));
    await signInFailures.forgetSignInFailures(this.db, account);
  }

  /**
   * Whether the user has a session or token last used from `ipAddress`: an address the user signs
   * in from, whose attempts are paced on their own (see sign-in-throttle.ts). Needs read on the
   * user's keys.
   */
  async usedKeyFrom(userId: string, ipAddress: string): Promise<boolean> {
    this.require('read', apiKeyObject(userId));
    const row = await this.db
      .selectFrom('api_keys')
      .select('id')
      .where('user_id', '=', userId)
      .where('ip_address', '=', ipAddress)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** The live user a provider account is linked to, or undefined; needs read on that user. */
  async getUserByLink(loginType: 'oidc' | 'github', linkedId: string): Promise<users.UserRow | undefined> {
    const row = await externalSignIn.getUserByLink(this.db, loginType, linkedId);
    if (row) this.require('read', userObject(row.id));
    return row;
  }

  /** Creates a user who signed up through a provider, with memberships and the link; needs create on both. */
  async insertLinkedUser(row: users.UserRow, organizationIds: readonly string[], linkedId: string): Promise<users.UserRow> {
    this.require('create', userObject(row.id));
    for (const orgId of organizationIds) this.require('create', orgMemberObject(row.id, orgId));
    return withConflicts(() => externalSignIn.insertLinkedUser(this.db, row, organizationIds, linkedId));
  }

  /**
   * Links a user to a provider account. A conversion from password sign-in also switches the login
   * type and drops the password, and needs `update_personal`; false when the user no longer signs
   * in with a password (it was converted already). Needs `update` on the user.
   */
  async linkUser(
    user: users.UserRow,
    loginType: 'oidc' | 'github',
    linkedId: string,
    conversion: { readonly fromPassword: boolean },
  ): Promise<boolean> {
    this.require('update', userObject(user.id));
    if (conversion.fromPassword) this.require('update_personal', userObject(user.id));
    await this.requireOutranks(user);
    const now = this.store.nowIso();
    const linked = await withConflicts(() =>
      externalSignIn.linkUser(
        this.db,
        { user_id: user.id, login_type: loginType, linked_id: linkedId, created_at: now, updated_at: now },
        conversion,
      ),
    );
    if (linked && conversion.fromPassword) await this.store.invalidateSessions({ userId: user.id });
    return linked;
  }

  /** Stores a sign-in under way (and forgets expired ones); needs create and delete on the site's system rows. */
  async insertState(row: externalSignIn.SignInStateRow): Promise<void> {
    this.require('create', siteObject('system'));
    this.require('delete', siteObject('system'));
    await withConflicts(() => externalSignIn.insertSignInState(this.db, row, this.store.nowIso()));
  }

  /** Removes and returns a sign-in under way, so its state is spent once; needs delete on the site's system rows. */
  async takeState(stateHash: string): Promise<externalSignIn.SignInStateRow | undefined> {
    this.require('delete', siteObject('system'));
    return externalSignIn.takeSignInState(this.db, stateHash);
  }
}
