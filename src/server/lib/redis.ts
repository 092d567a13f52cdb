import { createHash } from 'node:crypto';
import net from 'node:net';

export type RespValue = string | number | null | RespValue[];

/** One reply parsed from `buffer` at `offset`, or null when the buffer does not hold all of it yet. */
function parseReply(buffer: Buffer, offset: number): { value: RespValue | Error; next: number } | null {
  const lineEnd = buffer.indexOf('\r\n', offset);
  if (lineEnd === -1) return null;
  const type = String.fromCharCode(buffer[offset] ?? 0);
  const line = buffer.toString('utf8', offset + 1, lineEnd);
  const next = lineEnd + 2;
  switch (type) {
    case '+':
      return { value: line, next };
    case '-':
      return { value: new Error(`Redis: ${line}`), next };
    case ':':
      return { value: Number(line), next };
    case '$': {
      const length = Number(line);
      if (length < 0) return { value: null, next };
      if (buffer.length < next + length + 2) return null;
      return { value: buffer.toString('utf8', next, next + length), next: next + length + 2 };
    }
    case '*': {
      const count = Number(line);
      if (count < 0) return { value: null, next };
      const items: RespValue[] = [];
      let error: Error | null = null;
      let cursor = next;
      for (let i = 0; i < count; i++) {
        const item = parseReply(buffer, cursor);
        if (!item) return null;
        if (item.value instanceof Error) error ??= item.value;
        else items.push(item.value);
        cursor = item.next;
      }
      return { value: error ?? items, next: cursor };
    }
    default:
      throw new Error(`Redis: unexpected reply type ${JSON.stringify(type)}`);
  }
}

const encode = (args: readonly (string | number)[]) =>
  `*${args.length}\r\n${args.map((arg) => `$${Buffer.byteLength(String(arg))}\r\n${arg}\r\n`).join('')}`;

/** A Lua script sent by its SHA1 (EVALSHA), and in full only when Redis does not know it yet. */
export interface RedisScript {
  source: string;
  sha: string;
}

export const redisScript = (source: string): RedisScript => ({
  source,
  sha: createHash('sha1').update(source).digest('hex'),
});

/**
 * A minimal Redis client (RESP2 over one pipelined connection) for the few atomic commands the
 * server needs. It connects on first use and again after a drop; a command in flight when the
 * connection drops fails. `redis://[:password@]host[:port][/db]`.
 *
 * Commands issued in the same tick leave in one write (the socket is corked until the next tick):
 * on loopback a system call costs more than the bytes, and commands sent together are answered
 * together.
 */
export class RedisClient {
  private socket: net.Socket | null = null;
  private buffer: Buffer = Buffer.alloc(0);
  private pending: { resolve(value: RespValue): void; reject(error: Error): void }[] = [];
  private corked: net.Socket | null = null;

  constructor(private readonly url: URL) {}

  command(args: readonly (string | number)[]): Promise<RespValue> {
    const socket = this.connect();
    return new Promise((resolve, reject) => {
      this.pending.push({ resolve, reject });
      // A command in flight keeps the process alive until its answer; an idle connection does not.
      socket.ref();
      if (this.corked !== socket) {
        this.corked = socket;
        socket.cork();
        process.nextTick(() => {
          if (this.corked === socket) this.corked = null;
          socket.uncork();
        });
      }
      socket.write(encode(args));
    });
  }

  /** Runs a script by its SHA1; after a NOSCRIPT answer (a restarted or flushed Redis), sends it whole. */
  async eval(
    script: RedisScript,
    keys: readonly string[],
    args: readonly (string | number)[],
  ): Promise<RespValue> {
    try {
      return await this.command(['EVALSHA', script.sha, keys.length, ...keys, ...args]);
    } catch (error) {
      if (!(error instanceof Error && error.message.startsWith('Redis: NOSCRIPT'))) throw error;
      return this.command(['EVAL', script.source, keys.length, ...keys, ...args]);
    }
  }

  close(): void {
    this.socket?.end();
    this.socket = null;
  }

  private connect(): net.Socket {
    if (this.socket && !this.socket.destroyed) return this.socket;
    const socket = net.connect({
      host: this.url.hostname.replace(/^\[|\]$/g, ''),
      port: Number(this.url.port || 6379),
    });
    socket.setNoDelay(true);
    socket.unref(); // an idle connection never keeps the process alive
    this.socket = socket;
    this.buffer = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    const drop = (error: Error) => {
      if (this.socket === socket) this.socket = null;
      for (const waiter of this.pending.splice(0)) waiter.reject(error);
    };
    socket.on('error', drop);
    socket.on('close', () => drop(new Error('Redis connection closed')));
    const password = decodeURIComponent(this.url.password);
    const db = this.url.pathname.slice(1);
    const setup = (args: string[]) => {
      this.pending.push({ resolve: () => {}, reject: () => socket.destroy() });
      socket.write(encode(args));
    };
    if (password)
      setup(
        this.url.username ? ['AUTH', decodeURIComponent(this.url.username), password] : ['AUTH', password],
      );
    if (db) setup(['SELECT', db]);
    return socket;
  }

  private onData(chunk: Buffer): void {
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
    let offset = 0;
    for (;;) {
      const reply = parseReply(this.buffer, offset);
      if (!reply) break;
      offset = reply.next;
      const waiter = this.pending.shift();
      if (reply.value instanceof Error) waiter?.reject(reply.value);
      else waiter?.resolve(reply.value);
    }
    this.buffer = this.buffer.subarray(offset);
    if (this.pending.length === 0) this.socket?.unref();
  }
}
