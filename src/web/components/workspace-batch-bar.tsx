// What can be done to the selected workspaces at once: start, stop, update or delete those the
// action fits, after a confirmation that says how many; then progress and each failure by name.
import { useState } from 'react';
import type { Workspace } from '../../sdk/wire/index.js';
import { eligibleFor, runBatch, type BatchAction, type BatchProgress } from '../workspace-batch.js';
import { ConfirmButton } from './confirm-button.js';

const ACTIONS: readonly { readonly action: BatchAction; readonly label: string; readonly past: string }[] = [
  { action: 'start', label: 'Start', past: 'Started' },
  { action: 'stop', label: 'Stop', past: 'Stopped' },
  { action: 'update', label: 'Update', past: 'Updated' },
  { action: 'delete', label: 'Delete', past: 'Deleted' },
];

const plural = (n: number) => `${n} workspace${n === 1 ? '' : 's'}`;

export function WorkspaceBatchBar({
  selected,
  onClear,
  onDone,
}: {
  selected: readonly Workspace[];
  onClear: () => void;
  /** Told when a batch has finished, to read the list again. */
  onDone: () => void;
}) {
  const [progress, setProgress] = useState<BatchProgress>();
  const running = progress !== undefined && !progress.finished;
  if (selected.length === 0 && !progress) return null;
  const start = async (action: BatchAction) => {
    const targets = eligibleFor(action, selected);
    const result = await runBatch(action, targets, setProgress);
    if (result.failures.length === 0) onClear();
    onDone();
  };
  return (
    <div className="workspace-batch" role="region" aria-label="Selected workspaces">
      {selected.length > 0 && (
        <div className="workspace-batch-actions">
          <span className="workspace-batch-count">{plural(selected.length)} selected</span>
          {ACTIONS.map(({ action, label }) => {
            const eligible = eligibleFor(action, selected).length;
            return (
              <ConfirmButton
                key={action}
                label={eligible === selected.length ? label : `${label} (${eligible})`}
                question={`${label} ${plural(eligible)}?`}
                confirmLabel={`Yes, ${label.toLowerCase()} ${plural(eligible)}`}
                danger={action === 'delete'}
                disabled={running || eligible === 0}
                onConfirm={() => void start(action)}
              />
            );
          })}
          <button type="button" className="button button-quiet" onClick={onClear} disabled={running}>
            Clear selection
          </button>
        </div>
      )}
      {progress && <BatchReport progress={progress} onDismiss={running ? undefined : () => setProgress(undefined)} />}
    </div>
  );
}

function BatchReport({ progress, onDismiss }: { progress: BatchProgress; onDismiss: (() => void) | undefined }) {
  const { label, past } = ACTIONS.find((each) => each.action === progress.action) ?? { label: '', past: '' };
  const succeeded = progress.done - progress.failures.length;
  return (
    <div className={progress.failures.length > 0 ? 'notice notice-error' : 'notice'} role="status" aria-live="polite">
      {progress.finished ? (
        <p>
          {past} {succeeded} of {plural(progress.total)}
          {progress.failures.length > 0 ? `; ${progress.failures.length} failed.` : '.'}
        </p>
      ) : (
        <p>
          <progress max={progress.total} value={progress.done} aria-label={`${label} progress`} /> {label}: {progress.done} of{' '}
          {progress.total} done…
        </p>
      )}
      {progress.failures.length > 0 && (
        <ul className="workspace-batch-failures">
          {progress.failures.map((failure) => (
            <li key={failure.name}>
              <strong>{failure.name}</strong>: {failure.message}
            </li>
          ))}
        </ul>
      )}
      {onDismiss && (
        <button type="button" className="button button-quiet" onClick={onDismiss}>
          Dismiss
        </button>
      )}
    </div>
  );
}
