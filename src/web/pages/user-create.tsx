// A new user made by an administrator: names, email, how they sign in (a password only for the
// password type), and the organization they join. The server's objections show by their fields.
import { useState, type FormEvent, type ReactNode } from 'react';
import type { Organization, User } from '../../sdk/wire/index.js';
import { api, ApiError } from '../api.js';
import { ErrorMessage, useAction, useLoad } from '../components/feedback.js';
import { UserAdminGate } from '../components/user-admin-gate.js';
import { Link, navigate } from '../router.js';

const LOGIN_TYPES: readonly (readonly [value: string, label: string])[] = [
  ['password', 'Password'],
  ['oidc', 'OpenID Connect'],
  ['github', 'GitHub'],
  ['none', 'None (API tokens only)'],
];

/** The fields of the form, by the names the API's validations use. */
type FieldName = 'username' | 'email' | 'name' | 'login_type' | 'password' | 'organization_ids';

export function UserCreatePage() {
  return (
    <UserAdminGate title="New user">
      <UserCreateForm />
    </UserAdminGate>
  );
}

function UserCreateForm() {
  const organizations = useLoad(() => api<Organization[]>('GET', '/organizations'), []);
  const [username, setUsername] = useState('');
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [loginType, setLoginType] = useState('password');
  const [password, setPassword] = useState('');
  const [organization, setOrganization] = useState('');
  const [created, create] = useAction(async () => {
    const org = organization || organizations.data?.find((o) => o.is_default)?.id;
    const user = await api<User>('POST', '/users', {
      body: {
        username: username.trim(),
        email: email.trim(),
        name: name.trim(),
        login_type: loginType,
        ...(loginType === 'password' ? { password } : {}),
        organization_ids: org ? [org] : [],
      },
    });
    navigate(`/deployment/users?q=${encodeURIComponent(user.username)}`);
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void create();
  };
  const error = created.state === 'error' ? created.error : undefined;
  const problems = new Map<string, string>(error instanceof ApiError ? error.validations.map((v) => [v.field, v.detail]) : []);
  const problemOf = (field: FieldName) => problems.get(field);
  // Problems the form has no field for are told above it with the message.
  const unplaced = error instanceof ApiError && error.validations.some((v) => !FIELDS.has(v.field));
  const described = (field: FieldName) => ({
    id: `user-${field}`,
    'aria-invalid': problemOf(field) ? true : undefined,
    'aria-describedby': problemOf(field) ? `${field}-problem` : undefined,
  });
  return (
    <section className="page page-narrow">
      <p className="breadcrumb">
        <Link href="/deployment/users">Users</Link> / New
      </p>
      <h1>New user</h1>
      <form className="form card" onSubmit={submit} aria-label="New user" noValidate>
        <Field field="username" label="Username" problem={problemOf('username')}>
          <input
            name="username"
            value={username}
            required
            autoComplete="off"
            onChange={(event) => setUsername(event.target.value)}
            {...described('username')}
          />
        </Field>
        <Field field="email" label="Email" problem={problemOf('email')}>
          <input
            name="email"
            type="email"
            value={email}
            required
            autoComplete="off"
            onChange={(event) => setEmail(event.target.value)}
            {...described('email')}
          />
        </Field>
        <Field
          field="name"
          label={
            <>
              Full name <span className="required">(optional)</span>
            </>
          }
          problem={problemOf('name')}
        >
          <input name="name" value={name} autoComplete="off" onChange={(event) => setName(event.target.value)} {...described('name')} />
        </Field>
        <Field field="login_type" label="Login type" problem={problemOf('login_type')}>
          <select name="login_type" value={loginType} onChange={(event) => setLoginType(event.target.value)} {...described('login_type')}>
            {LOGIN_TYPES.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </Field>
        {loginType === 'password' && (
          <Field field="password" label="Password" problem={problemOf('password')}>
            <input
              name="password"
              type="password"
              value={password}
              required
              autoComplete="new-password"
              onChange={(event) => setPassword(event.target.value)}
              {...described('password')}
            />
          </Field>
        )}
        <Field field="organization_ids" label="Organization" problem={problemOf('organization_ids')}>
          <select
            name="organization"
            value={organization}
            onChange={(event) => setOrganization(event.target.value)}
            {...described('organization_ids')}
          >
            {(organizations.data ?? []).map((o) => (
              <option key={o.id} value={o.is_default ? '' : o.id}>
                {o.display_name || o.name}
                {o.is_default ? ' (default)' : ''}
              </option>
            ))}
          </select>
        </Field>
        {error !== undefined && (problems.size === 0 || unplaced ? <ErrorMessage error={error} /> : <FormProblem error={error} />)}
        <div className="form-actions">
          <button type="submit" className="button button-primary" disabled={created.state === 'pending'}>
            Create user
          </button>
          <Link href="/deployment/users" className="button button-quiet">
            Cancel
          </Link>
        </div>
      </form>
    </section>
  );
}

const FIELDS: ReadonlySet<string> = new Set<FieldName>(['username', 'email', 'name', 'login_type', 'password', 'organization_ids']);

/** A control with its label, and below them what the server found wrong with it. */
function Field({
  field,
  label,
  problem,
  children,
}: {
  field: FieldName;
  label: ReactNode;
  problem: string | undefined;
  children: ReactNode;
}) {
  return (
    <div className="field">
      <label className="field-label" htmlFor={`user-${field}`}>
        {label}
      </label>
      {children}
      {problem && (
        <span id={`${field}-problem`} className="field-problem">
          {problem}
        </span>
      )}
    </div>
  );
}

/** The message of an answer whose every problem is shown by its field. */
function FormProblem({ error }: { error: unknown }) {
  return (
    <p className="field-problem" role="alert">
      {error instanceof Error ? error.message : String(error)} Fix the fields marked above.
    </p>
  );
}
