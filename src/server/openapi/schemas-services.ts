import { z } from '@hono/zod-openapi';
import {
  SERVICE_STATUSES,
  type Service,
  type ServiceList,
  type ServicePreview,
  type ServiceStarting,
  type ServiceStopped,
  type Workspace,
  type WorkspaceList,
} from '@/contracts/services.js';

/* The declared shapes of the workspace services routes (issue 10, seed 002). */

const port = z.union([z.number().int(), z.literal('auto')]);

export const WorkspaceSchema: z.ZodType<Workspace> = z
  .object({
    id: z.string().openapi({ description: '26-character ULID, stable across restarts' }),
    kind: z.enum(['project', 'run']),
    projectId: z.uuid(),
    taskId: z.uuid().nullable(),
    runId: z.uuid().nullable(),
    branch: z.string(),
    heldAt: z.string().nullable().optional().openapi({
      description:
        'The project workspace held behind its branch while its services run: the commit its files are at until its last service stops; null otherwise',
    }),
  })
  .openapi('Workspace');
export const WorkspaceListSchema: z.ZodType<WorkspaceList> = z
  .object({ workspaces: z.array(WorkspaceSchema) })
  .openapi('WorkspaceList');

export const ServiceSchema: z.ZodType<Service> = z
  .object({
    id: z.string().openapi({ description: 'The file name in .discobot/services/' }),
    name: z.string(),
    description: z.string().optional(),
    http: port.optional().openapi({ description: 'The port, or "auto" until one is assigned at start' }),
    https: port.optional(),
    path: z.string().openapi({ description: 'The service file, relative to the workspace' }),
    urlPath: z
      .string()
      .optional()
      .openapi({ description: 'The front matter’s `path`: where a preview opens' }),
    status: z.enum(SERVICE_STATUSES),
    passive: z.literal(true).optional(),
    pid: z.number().int().optional(),
    startedAt: z.string().optional().openapi({ format: 'date-time' }),
    exitCode: z.number().int().nullable().optional(),
    error: z.string().optional(),
  })
  .openapi('Service');
export const ServiceListSchema: z.ZodType<ServiceList> = z
  .object({
    services: z.array(ServiceSchema),
    warnings: z.array(z.object({ file: z.string(), message: z.string() })),
  })
  .openapi('ServiceList');
export const ServiceStartingSchema: z.ZodType<ServiceStarting> = z
  .object({ status: z.literal('starting'), serviceId: z.string() })
  .openapi('ServiceStarting');
export const ServiceStoppedSchema: z.ZodType<ServiceStopped> = z
  .object({ status: z.literal('stopped'), serviceId: z.string() })
  .openapi('ServiceStopped');
export const ServicePreviewSchema: z.ZodType<ServicePreview> = z
  .object({ url: z.string().openapi({ description: 'The preview origin with a one-time ticket (60 s)' }) })
  .openapi('ServicePreview');
