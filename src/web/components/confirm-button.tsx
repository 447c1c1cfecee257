// A button for an action that cannot be taken back: the first press asks, the second does it.
import { useEffect, useRef, useState } from 'react';

export function ConfirmButton({
  label,
  question,
  confirmLabel,
  onConfirm,
  disabled,
  danger,
}: {
  label: string;
  question: string;
  confirmLabel?: string;
  onConfirm: () => void;
  disabled?: boolean;
  danger?: boolean;
}) {
  const [asking, setAsking] = useState(false);
  const confirm = useRef<HTMLButtonElement>(null);
  const ask = useRef<HTMLButtonElement>(null);
  const asked = useRef(false);
  useEffect(() => {
    if (asking) confirm.current?.focus();
    // Back to where the question was asked, so that the keyboard does not lose its place.
    else if (asked.current) ask.current?.focus();
    asked.current = asking;
  }, [asking]);
  if (!asking)
    return (
      <button
        ref={ask}
        type="button"
        className={danger ? 'button button-danger-quiet' : 'button'}
        disabled={disabled}
        onClick={() => setAsking(true)}
      >
        {label}
      </button>
    );
  return (
    <span
      className="confirm"
      role="group"
      aria-label={question}
      onKeyDown={(event) => {
        if (event.key !== 'Escape') return;
        event.stopPropagation();
        setAsking(false);
      }}
    >
      <span className="confirm-question">{question}</span>
      <button
        ref={confirm}
        type="button"
        className={danger ? 'button button-danger' : 'button button-primary'}
        onClick={() => {
          setAsking(false);
          onConfirm();
        }}
      >
        {confirmLabel ?? `Yes, ${label.toLowerCase()}`}
      </button>
      <button type="button" className="button button-quiet" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}
