import { randomUUID } from 'node:crypto';
import type { ErrorCode } from '@/contracts/errors.js';
import type { ClientResponse } from '@/server/testing/test-app.js';
import type { ErrorWorld, User } from './error-world.js';

/** A real request that the app answers with one error code. */
export type Recipe = (w: ErrorWorld) => Promise<ClientResponse>;

/**
 * Per operationId, a recipe for each code its module answers (documented-errors.test.ts derives
 * those of the layers in front of every route from the operation itself).
 */
export type Recipes = Record<string, Partial<Record<ErrorCode, Recipe>>>;

/** An id nobody has. */
export const id = () => randomUUID();
export const q = encodeURIComponent;

export const get = (user: User, url: string) => user.client.get(url);
export const post = (user: User, url: string, body: unknown = {}, headers: Record<string, string> = {}) =>
  user.client.request('POST', url, body, headers);
