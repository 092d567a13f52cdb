import { AppError } from '@/server/lib/errors.js';

/* The service API's errors, with seed 002's codes and the details its table gives. */

export const notFound = (serviceId: string) =>
  new AppError('service_not_found', `No service ${serviceId} in this workspace`, { serviceId });
export const passive = (serviceId: string) =>
  new AppError(
    'service_is_passive',
    'A passive service is not run by AutoCoder: it has no process to start, stop or read',
    {
      serviceId,
    },
  );
export const notRunning = (serviceId: string) =>
  new AppError('service_not_running', `Service ${serviceId} is not running`, { serviceId });
export const noPort = (serviceId: string, message = `Service ${serviceId} declares no http or https port`) =>
  new AppError('service_no_port', message, { serviceId });
/** A service that starts, before its process exists: as the proxy answers a port that refuses. */
export const notListening = (port: number) =>
  new AppError(
    'connection_refused',
    `Nothing accepts connections on port ${port} yet. If the service is starting, try again in a moment.`,
    { port },
  );
export const alreadyRunning = (serviceId: string, pid: number | null) =>
  new AppError('service_already_running', `Service ${serviceId} is already running`, { serviceId, pid });
export const tooMany = (limit: number) =>
  new AppError(
    'TOO_MANY_SERVICES',
    `You are running ${limit} services, the most allowed at once: stop one first`,
    { limit },
  );
