import { connect as netConnect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { connect as tlsConnect } from 'node:tls';
import type { Endpoint } from '../sandbox/sandbox.js';
import { LOOPBACK_TARGETS, type LoopbackTarget } from './ports.js';

/** The options node's `net.connect` (and `tls.connect`) take for an endpoint. */
export const connectOptions = (endpoint: Endpoint): { path: string } | { host: string; port: number } =>
  'socketPath' in endpoint ? { path: endpoint.socketPath } : { host: endpoint.host, port: endpoint.port };

/** Where a service answered: the loopback address it listens on inside, and where the server reaches it. */
export interface Answered {
  host: LoopbackTarget;
  endpoint: Endpoint;
}

interface Probe {
  /** The port the service listens on (its Host header). */
  port: number;
  protocol: 'http' | 'https';
}

/**
 * Does something answer HTTP at `endpoint`? Sends `HEAD /` (over TLS, unverified, for https) and
 * resolves true at the first byte back, whatever it says; false when the connection fails or
 * closes before one. A connection that stays open and silent keeps it pending until `signal`.
 *
 * An accepted connection alone proves nothing over a Unix socket bridged into a sandbox: the
 * bridge accepts at once, then closes when nothing listens inside. A byte of answer can only
 * come from the service, so no timing decides.
 */
export function answersHttp(
  endpoint: Endpoint,
  host: LoopbackTarget,
  probe: Probe,
  signal: AbortSignal,
): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const options = connectOptions(endpoint);
    const socket =
      probe.protocol === 'https'
        ? tlsConnect({ ...options, rejectUnauthorized: false })
        : netConnect(options);
    const done = (answered: boolean) => {
      signal.removeEventListener('abort', onAbort);
      socket.destroy();
      resolve(answered);
    };
    const onAbort = () => done(false);
    signal.addEventListener('abort', onAbort, { once: true });
    socket.once('data', () => done(true));
    socket.once('end', () => done(false));
    socket.once('close', () => done(false));
    socket.once('error', () => done(false));
    const authority = host.includes(':') ? `[${host}]:${probe.port}` : `${host}:${probe.port}`;
    socket.write(
      `HEAD / HTTP/1.1\r\nHost: ${authority}\r\nUser-Agent: autocoder-readiness\r\nConnection: close\r\n\r\n`,
    );
  });
}

/**
 * Waits until the service answers HTTP on one of the loopback addresses (`reach` names where the
 * server connects for each), and says which; null when `timeoutMs` passed or `signal` was aborted
 * first (the process ended, or was stopped). Both addresses are tried at once, again after a pause
 * while neither answers.
 */
export async function waitForAnswer(
  reach: (host: LoopbackTarget) => Endpoint,
  probe: Probe & { timeoutMs: number; signal: AbortSignal },
): Promise<Answered | null> {
  const until = AbortSignal.any([probe.signal, AbortSignal.timeout(probe.timeoutMs)]);
  let pause = 50;
  while (!until.aborted) {
    const round = new AbortController();
    const signal = AbortSignal.any([until, round.signal]);
    const tries = LOOPBACK_TARGETS.map((host) => ({ host, endpoint: reach(host) }));
    const answered = await new Promise<Answered | null>((resolve) => {
      let pending = tries.length;
      for (const attempt of tries) {
        void answersHttp(attempt.endpoint, attempt.host, probe, signal).then((ok) => {
          if (ok) resolve(attempt);
          else if (--pending === 0) resolve(null);
        });
      }
    });
    round.abort(); // the other address's try, if still open
    if (answered) return answered;
    await sleep(pause, undefined, { signal: until }).catch(() => undefined);
    pause = Math.min(pause * 2, 250);
  }
  return null;
}
