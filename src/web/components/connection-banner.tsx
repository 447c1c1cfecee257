// The strip under the deployment's banners that says the server is out of reach, while it is. It
// asks the server again on its own, more slowly each time, and "Retry now" asks at once (and has
// every live stream reconnect).
import { useEffect, useState } from 'react';
import { api } from '../api.js';
import { retryConnectionNow, useConnectionState } from '../connection-state.js';

/** The cheapest answer the server gives: proof that it is reachable again. */
function probe(): void {
  api('GET', '/buildinfo', { signedOutOk: true }).catch(() => undefined);
}

export function ConnectionBanner() {
  const state = useConnectionState();
  const [checking, setChecking] = useState(false);

  useEffect(() => {
    if (state !== 'lost') return;
    let delay = 2_000;
    let timer: ReturnType<typeof setTimeout>;
    const again = () => {
      probe();
      delay = Math.min(30_000, delay * 2);
      timer = setTimeout(again, delay);
    };
    timer = setTimeout(again, delay);
    return () => clearTimeout(timer);
  }, [state]);

  const retry = () => {
    setChecking(true);
    retryConnectionNow();
    void api('GET', '/buildinfo', { signedOutOk: true })
      .catch(() => undefined)
      .finally(() => setChecking(false));
  };

  // The live region stays in the page, so that its text appearing is announced.
  return (
    <div className="connection-banner-region" role="status">
      {state === 'lost' && (
        <div className="connection-banner">
          <span className="spinner" aria-hidden="true" />
          <span>Connection lost — reconnecting…</span>
          <button type="button" className="button" onClick={retry} disabled={checking}>
            Retry now
          </button>
        </div>
      )}
    </div>
  );
}
