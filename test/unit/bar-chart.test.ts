import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderBars } from '../../src/cli/bar-chart.js';

describe('bar charts', () => {
  it('scales bars to the longest, in eighths of a cell, with aligned labels and captions', () => {
    const lines = renderBars(
      [
        { label: '2026-01-04', value: 0, caption: '0' },
        { label: '2026-01-05', value: 4, caption: '4' },
        { label: 'one', value: 1, caption: '1' },
      ],
      4,
    );
    assert.deepEqual(lines, ['2026-01-04        0', '2026-01-05  ████  4', 'one         █     1']);
    assert.deepEqual(
      renderBars(
        [
          { label: 'a', value: 3, caption: '3' },
          { label: 'b', value: 1, caption: '1' },
        ],
        2,
      ),
      ['a  ██  3', 'b  ▋   1'],
    );
  });

  it('colors bars only when asked', () => {
    assert.match(renderBars([{ label: 'a', value: 1, caption: '1' }], 1, true)[0] ?? '', /\u001b\[36m█\u001b\[0m/);
  });
});
