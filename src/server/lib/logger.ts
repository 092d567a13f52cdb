export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

/** Keys whose values never reach a log line. */
const SECRET_KEY = /(pass(word)?|secret|token|api[-_]?key|authorization|cookie|x-anthropic-key)/i;

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

function redact(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (SECRET_KEY.test(key)) out[key] = '[redacted]';
    else if (value instanceof Error)
      out[key] = { name: value.name, message: value.message, stack: value.stack };
    else out[key] = value;
  }
  return out;
}

/** Structured JSON-lines logger; secrets are redacted by key name. */
export function createLogger(
  level: LogLevel,
  base: Record<string, unknown> = {},
  write: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Logger {
  const threshold = ORDER[level];
  const log = (lvl: Exclude<LogLevel, 'silent'>, msg: string, fields: Record<string, unknown> = {}) => {
    if (ORDER[lvl] < threshold) return;
    write(
      JSON.stringify({ time: new Date().toISOString(), level: lvl, msg, ...redact({ ...base, ...fields }) }),
    );
  };
  return {
    debug: (msg, fields) => log('debug', msg, fields),
    info: (msg, fields) => log('info', msg, fields),
    warn: (msg, fields) => log('warn', msg, fields),
    error: (msg, fields) => log('error', msg, fields),
    child: (fields) => createLogger(level, { ...base, ...fields }, write),
  };
}
