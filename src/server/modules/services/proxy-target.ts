import type { Endpoint } from '../sandbox/sandbox.js';
import type { LoopbackTarget } from './ports.js';

/** Where the proxy sends a service's requests. */
export interface ProxyTarget {
  /**
   * Where the server connects: a Unix socket bridged into the service's sandbox (which has a
   * network of its own), or a TCP port on the host's loopback (a sandbox sharing the host's
   * network, a passive service).
   */
  endpoint: Endpoint;
  /** The loopback address the service listens on, on its side (the Host it is sent). */
  host: LoopbackTarget;
  /** The port the service listens on, on its side: the one it declares or was given. */
  port: number;
  protocol: 'http' | 'https';
}
