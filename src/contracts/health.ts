export interface Health {
  status: 'ok';
  version: string;
  database: 'pglite' | 'postgres';
}
