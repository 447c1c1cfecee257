// Whether the signed-in user may manage groups: the navigation and the group pages offer their
// forms only then (the server decides either way).
import { useEffect, useState } from 'react';
import { api } from './api.js';

/** Whether the signed-in user may make groups in some organization of theirs. */
export function useMayManageGroups(): boolean {
  const [may, setMay] = useState(false);
  useEffect(() => {
    let live = true;
    const checks = { manage: { action: 'create', object: { resource_type: 'group', any_org: true } } };
    api<Record<string, boolean>>('POST', '/authcheck', { body: { checks } })
      .then((answer) => {
        if (live) setMay(answer['manage'] === true);
      })
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, []);
  return may;
}
