import type { Service } from '@/contracts/services.js';
import type { ServiceDefinition } from './discovery.js';
import type { ManagedService } from './managed-service.js';

/**
 * A service as the API shows it: the file's front matter, and, while this process knows of a run
 * of it (until 30 s after it ended), that run's state. A passive service is always `stopped`.
 */
export function toService(definition: ServiceDefinition, managed: ManagedService | undefined): Service {
  const { config } = definition;
  const service: Service = {
    id: definition.id,
    name: config.name ?? definition.id,
    path: definition.relativePath,
    status: definition.passive ? 'stopped' : (managed?.status ?? 'stopped'),
  };
  if (config.description !== undefined) service.description = config.description;
  // An `auto` port is shown once it is assigned, for as long as the run is remembered.
  const assigned = managed?.port ?? undefined;
  if (config.http !== undefined) service.http = config.http === 'auto' ? (assigned ?? 'auto') : config.http;
  if (config.https !== undefined)
    service.https = config.https === 'auto' ? (assigned ?? 'auto') : config.https;
  if (config.path !== undefined) service.urlPath = config.path;
  if (definition.passive) {
    service.passive = true;
    return service;
  }
  if (!managed) return service;
  if (managed.active && managed.pid !== undefined) service.pid = managed.pid;
  service.startedAt = managed.startedAt.toISOString();
  if (!managed.active) service.exitCode = managed.exitCode ?? null;
  if (managed.error !== undefined) service.error = managed.error;
  return service;
}

/** The port a definition's protocol is served on, and which protocol; null when it declares none. */
export function declaredPort(
  definition: ServiceDefinition,
): { port: number | 'auto'; protocol: 'http' | 'https' } | null {
  if (definition.config.http !== undefined) return { port: definition.config.http, protocol: 'http' };
  if (definition.config.https !== undefined) return { port: definition.config.https, protocol: 'https' };
  return null;
}
