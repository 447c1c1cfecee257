// The buttons of a workspace's lifecycle actions: start at once, the others after a confirmation.
import type { Workspace } from '../../sdk/wire/index.js';
import { availableActions, type WorkspaceAction } from '../workspace-actions.js';
import { ConfirmButton } from './confirm-button.js';

function capitalized(action: WorkspaceAction): string {
  return action[0]!.toUpperCase() + action.slice(1);
}

/** The actions that fit the workspace's state; `startClass` styles Start, the one action that does not ask. */
export function WorkspaceActionButtons({
  workspace,
  busy,
  run,
  startClass,
}: {
  workspace: Workspace;
  busy: boolean;
  run: (action: WorkspaceAction) => Promise<void>;
  startClass: string;
}) {
  return (
    <>
      {availableActions(workspace).map((name) =>
        name === 'start' ? (
          <button key={name} type="button" className={startClass} disabled={busy} onClick={() => void run(name)}>
            Start
          </button>
        ) : (
          <ConfirmButton
            key={name}
            label={capitalized(name)}
            question={name === 'delete' ? `Delete ${workspace.name} and its data?` : `${capitalized(name)} ${workspace.name}?`}
            danger={name === 'delete'}
            disabled={busy}
            onConfirm={() => void run(name)}
          />
        ),
      )}
    </>
  );
}
