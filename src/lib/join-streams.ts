import { pipeline, type Duplex } from 'node:stream';

/** Carries bytes both ways between two duplexes; when either ends or fails, both are destroyed. */
export function joinStreams(a: Duplex, b: Duplex): void {
  const done = (): void => {
    a.destroy();
    b.destroy();
  };
  pipeline(a, b, done);
  pipeline(b, a, done);
}
