// A command to run, or a secret shown once, with a button that copies it.
import { useState } from 'react';

/**
 * `label` names the button for a screen reader when the text is not a command to read out: a
 * token's secret or a key is named ("Copy the token"), never spoken or left in an attribute.
 */
export function CopyCommand({ command, label }: { command: string; label?: string }) {
  const [copied, setCopied] = useState<'yes' | 'no' | undefined>();
  const copy = () =>
    navigator.clipboard.writeText(command).then(
      () => setCopied('yes'),
      () => setCopied('no'),
    );
  return (
    <div className="copy-command">
      <code>{command}</code>
      <button type="button" className="button button-quiet" onClick={() => void copy()} aria-label={label ?? `Copy: ${command}`}>
        {copied === 'yes' ? 'Copied' : 'Copy'}
      </button>
      <span className="visually-hidden" role="status">
        {copied === 'yes'
          ? 'Copied to the clipboard.'
          : copied === 'no'
            ? 'The browser did not allow copying; select the text instead.'
            : ''}
      </span>
    </div>
  );
}
