// A user as lists show them: their picture, or their initial when they have none, and their names.
import type { User } from '../../sdk/wire/index.js';

export function UserIdentity({ user }: { user: Pick<User, 'username' | 'name' | 'avatar_url'> }) {
  return (
    <span className="user-identity">
      {user.avatar_url ? (
        <img className="user-avatar" src={user.avatar_url} alt="" width={32} height={32} />
      ) : (
        <span className="user-avatar user-avatar-initial" aria-hidden="true">
          {user.username.slice(0, 1).toUpperCase()}
        </span>
      )}
      <span className="user-names">
        <strong>{user.username}</strong>
        {user.name && <span className="muted">{user.name}</span>}
      </span>
    </span>
  );
}
