// Paging of a list the API counts: "1–25 of 132" and the way to the pages before and after.

export function Pager({
  offset,
  limit,
  shown,
  count,
  label,
  onOffset,
}: {
  offset: number;
  limit: number;
  /** How many rows this page holds. */
  shown: number;
  count: number;
  label: string;
  onOffset: (offset: number) => void;
}) {
  const first = shown === 0 ? 0 : offset + 1;
  const last = offset + shown;
  return (
    <nav className="pager" aria-label={label}>
      <span className="pager-range" role="status">
        {first}–{last} of {count}
      </span>
      <button type="button" className="button" disabled={offset === 0} onClick={() => onOffset(Math.max(0, offset - limit))}>
        Previous
      </button>
      <button type="button" className="button" disabled={last >= count} onClick={() => onOffset(offset + limit)}>
        Next
      </button>
    </nav>
  );
}
