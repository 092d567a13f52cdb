/** The token of an `Authorization: Bearer <token>` header, or undefined for anything else. */
export function bearerToken(authorization: string | undefined): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
}
