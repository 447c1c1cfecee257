// The administration pages open only for the deployment's owners and user administrators; others
// read why. The server refuses them either way: this only spares them a page of errors.
import type { ReactNode } from 'react';
import { isOwner, useSession } from '../session.js';

export function UserAdminGate({ title, children }: { title: string; children: ReactNode }) {
  const { user } = useSession();
  if (isOwner(user)) return <>{children}</>;
  return (
    <section className="page">
      <h1>{title}</h1>
      <p>You are not allowed to see this page: only the deployment’s owners and user administrators manage users and organizations.</p>
    </section>
  );
}
