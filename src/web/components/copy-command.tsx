// A command to run, with a button that copies it.
import { useState } from 'react';

export function CopyCommand({ command }: { command: string }) {
  const [copied, setCopied] = useState<'yes' | 'no' | undefined>();
  const copy = () =>
    navigator.clipboard.writeText(command).then(
      () => setCopied('yes'),
      () => setCopied('no'),
    );
  return (
    <div className="copy-command">
      <code>{command}</code>
      <button type="button" className="button button-quiet" onClick={() => void copy()} aria-label={`Copy: ${command}`}>
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
