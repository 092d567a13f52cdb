import { z } from 'zod';
import { cleanString } from './common.js';

const projectName = cleanString().min(1, 'Name is required').max(100, 'Name must be at most 100 characters');

/** POST /api/projects — a new empty repository, or a clone of `importPath` / `repoUrl`. */
export const createProjectSchema = z
  .strictObject({
    name: projectName,
    importPath: cleanString().min(1).max(4096).optional(),
    repoUrl: cleanString().min(1).max(2048).optional(),
  })
  .refine((body) => !(body.importPath && body.repoUrl), {
    message: 'Give importPath or repoUrl, not both',
    path: ['repoUrl'],
  });

/** PATCH /api/projects/:id */
export const updateProjectSchema = z.strictObject({ name: projectName });

export const filePathQuerySchema = z.strictObject({ path: z.string().min(1).max(4096) });

export type CreateProjectInput = z.infer<typeof createProjectSchema>;
export type UpdateProjectInput = z.infer<typeof updateProjectSchema>;

export interface Project {
  id: string;
  name: string;
  /**
   * Where the repository came from: the URL it was cloned from, or the `origin` of an imported local
   * repository (credentials removed). Null for a new repository, or a local one without a network origin:
   * a path on the server is never shown.
   */
  repoUrl: string | null;
  defaultBranch: string;
  createdAt: string;
  updatedAt: string;
}

/** GET /api/projects/import-options — what the import dialog may offer on this server. */
export interface ImportOptions {
  /** Import from a path on the server is on (the operator set AUTOCODER_IMPORT_ROOTS). */
  localImport: boolean;
}

export interface TreeEntry {
  path: string;
  size: number;
}

export interface ProjectTree {
  branch: string;
  commit: string | null;
  entries: TreeEntry[];
}

export interface ProjectFile {
  path: string;
  size: number;
  /** False when the file looks binary; `content` is then empty. */
  isText: boolean;
  /** True when the file is larger than the server sends; `content` then holds its beginning. */
  truncated: boolean;
  content: string;
}
