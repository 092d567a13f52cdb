import { z } from 'zod';
import { cleanString } from './common.js';

const email = cleanString()
  .max(254, 'Email is too long')
  .pipe(z.email('Enter a valid email address'))
  .transform((value) => value.toLowerCase());

/** POST /api/auth/register */
export const registerSchema = z.strictObject({
  email,
  password: z.string().min(8, 'Password must be at least 8 characters').max(256, 'Password is too long'),
});

/** POST /api/auth/login — any string is accepted so that every failure answers the same 401. */
export const loginSchema = z.strictObject({
  email: cleanString()
    .max(254)
    .transform((value) => value.toLowerCase()),
  password: z.string().max(256),
});

export type RegisterInput = z.infer<typeof registerSchema>;
export type LoginInput = z.infer<typeof loginSchema>;

export interface User {
  id: string;
  email: string;
  createdAt: string;
}

export interface AuthResponse {
  user: User;
}

/** GET /api/auth/me — `user` is null without a (valid) session. */
export interface MeResponse {
  user: User | null;
}
