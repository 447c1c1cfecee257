import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { withDismissals } from '../../src/api/health/health-checker.js';
import { goDuration, verdict, worstSeverity } from '../../src/api/health/health-severity.js';
import type { HealthReport } from '../../src/sdk/wire/index.js';

/** A report whose sections carry only the verdicts (the rest does not take part in the overall result). */
function report(
  sections: Partial<
    Record<'access_url' | 'database' | 'websocket' | 'derp' | 'provisioner_daemons' | 'workspace_proxy', ReturnType<typeof verdict>>
  >,
): HealthReport {
  const ok = verdict({});
  return {
    time: '2026-01-05T10:00:00.000Z',
    healthy: true,
    severity: 'ok',
    service_version: '0.1.0',
    access_url: { ...(sections.access_url ?? verdict({}, { strict: true })) },
    database: { ...(sections.database ?? ok) },
    websocket: { ...(sections.websocket ?? ok) },
    derp: { ...(sections.derp ?? ok) },
    provisioner_daemons: { ...(sections.provisioner_daemons ?? ok) },
    workspace_proxy: { ...(sections.workspace_proxy ?? ok) },
  } as unknown as HealthReport;
}

describe('health verdicts', () => {
  it('orders severities ok < warning < error', () => {
    assert.equal(worstSeverity(), 'ok');
    assert.equal(worstSeverity('ok', 'warning'), 'warning');
    assert.equal(worstSeverity('error', 'warning', 'ok'), 'error');
  });

  it('makes a section unhealthy at error only, the access URL at any finding', () => {
    const warning = { warnings: [{ code: 'EDB02', message: 'slow' }] };
    assert.deepEqual({ healthy: verdict(warning).healthy, severity: verdict(warning).severity }, { healthy: true, severity: 'warning' });
    assert.equal(verdict(warning, { strict: true }).healthy, false);
    const failed = verdict({ error: { code: 'EDB01', message: 'no answer' } });
    assert.equal(failed.healthy, false);
    assert.equal(failed.error, 'EDB01: no answer');
    const heavy = verdict({ warnings: [{ code: 'EPD01', message: 'none' }], severity: 'error' });
    assert.deepEqual([heavy.severity, heavy.healthy, heavy.error], ['error', false, undefined]);
  });

  it('keeps dismissed sections out of the overall result but flags them', () => {
    const failing = report({
      derp: verdict({ error: { code: 'EUNKNOWN', message: 'x' } }),
      database: verdict({ warnings: [{ code: 'EDB02', message: 'slow' }] }),
    });
    const counted = withDismissals(failing, []);
    assert.deepEqual([counted.healthy, counted.severity, counted.derp.dismissed], [false, 'error', false]);
    const dismissed = withDismissals(failing, ['DERP']);
    assert.deepEqual(
      [dismissed.healthy, dismissed.severity, dismissed.derp.dismissed, dismissed.derp.severity],
      [true, 'warning', true, 'error'],
    );
    const all = withDismissals(failing, ['DERP', 'Database']);
    assert.deepEqual([all.healthy, all.severity], [true, 'ok']);
  });

  it('prints durations as the reference does', () => {
    assert.equal(goDuration(0), '0s');
    assert.equal(goDuration(0.0005), '500ns');
    assert.equal(goDuration(0.043092), '43.092µs');
    assert.equal(goDuration(6.3512), '6.351ms');
    assert.equal(goDuration(2500), '2.5s');
  });
});
