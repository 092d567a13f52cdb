import type { Service, ServiceList, ServicePreview } from '@/contracts/services.js';
import { AppError } from '@/server/lib/errors.js';
import type { OutputFeed } from './output-feed.js';
import { PREVIEW_TICKET_PATH, type PreviewAccess, previewOrigin } from './preview-access.js';
import type { ProxyTarget } from './proxy-target.js';
import { checkServiceId } from './service-id.js';
import type { ServiceManager } from './service-manager.js';
import { resolveOwnedWorkspace, type WorkspacesDeps } from './workspaces.js';

/** What the services API needs; `AppDeps` provides it. */
export interface ServicesDeps extends WorkspacesDeps {
  services: ServiceManager;
  previews: PreviewAccess;
}

/**
 * The services API (seed 002) over a user's workspace: every function answers 404
 * `WORKSPACE_NOT_FOUND` for another user's workspace, 400 for an id that is not a file name, and
 * 404 `service_not_found` for a file that is not a service.
 */
export async function listServices(
  deps: ServicesDeps,
  userId: string,
  workspaceId: string,
): Promise<ServiceList> {
  return deps.services.list(await resolveOwnedWorkspace(deps, userId, workspaceId));
}

/** The caller's workspace and a checked service id (400 for a bad id, before any lookup; 404 otherwise). */
async function ownedService(deps: ServicesDeps, userId: string, workspaceId: string, serviceId: string) {
  const id = checkServiceId(serviceId);
  return [await resolveOwnedWorkspace(deps, userId, workspaceId), id] as const;
}

export async function getService(
  deps: ServicesDeps,
  userId: string,
  workspaceId: string,
  serviceId: string,
): Promise<Service> {
  return deps.services.get(...(await ownedService(deps, userId, workspaceId, serviceId)));
}

/** Starts the service in the background (202); 409 `service_already_running` with its pid. */
export async function startService(
  deps: ServicesDeps,
  userId: string,
  workspaceId: string,
  serviceId: string,
): Promise<void> {
  await deps.services.start(...(await ownedService(deps, userId, workspaceId, serviceId)));
}

/** Stops it (SIGTERM to its group, SIGKILL after 5 s) and resolves once it has ended. */
export async function stopService(
  deps: ServicesDeps,
  userId: string,
  workspaceId: string,
  serviceId: string,
): Promise<void> {
  await deps.services.stop(...(await ownedService(deps, userId, workspaceId, serviceId)));
}

export async function serviceOutput(
  deps: ServicesDeps,
  userId: string,
  workspaceId: string,
  serviceId: string,
): Promise<OutputFeed> {
  return deps.services.output(...(await ownedService(deps, userId, workspaceId, serviceId)));
}

/**
 * Where the path proxy sends the request: `service_no_port`, `service_not_running` otherwise. A
 * service of the caller's that runs here is found in memory (every request of a page's load
 * comes here; a checkout removed meanwhile answers its owner until the watcher stops its services);
 * anything else asks the database and the disk, and answers their errors.
 */
export async function pathProxyTarget(
  deps: ServicesDeps,
  userId: string,
  workspaceId: string,
  serviceId: string,
): Promise<ProxyTarget> {
  const running = deps.services.runningTarget(workspaceId, checkServiceId(serviceId), { ownerId: userId });
  if (running) return running;
  return deps.services.proxyTarget(...(await ownedService(deps, userId, workspaceId, serviceId)));
}

/**
 * A preview URL for the service: its subdomain on the base domain, with a ticket that works
 * once, within 60 s, and only there. The service must declare a port (`service_no_port`).
 */
export async function issuePreview(
  deps: ServicesDeps,
  userId: string,
  target: { workspaceId: string; serviceId: string },
  origin: { baseDomain: string; proto: 'http' | 'https'; appHost: string },
): Promise<ServicePreview> {
  const id = checkServiceId(target.serviceId);
  const workspace = await resolveOwnedWorkspace(deps, userId, target.workspaceId);
  const service = await deps.services.get(workspace, id);
  if (service.http === undefined && service.https === undefined) {
    throw new AppError('service_no_port', `Service ${id} declares no http or https port`, { serviceId: id });
  }
  const host = { workspaceId: workspace.id, serviceId: service.id };
  const ticket = deps.previews.issueTicket(host, userId);
  return { url: `${previewOrigin(host, origin)}${PREVIEW_TICKET_PATH}?ticket=${ticket}` };
}
