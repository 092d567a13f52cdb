import { z } from 'zod';

/**
 * Control characters PostgreSQL cannot store (NUL) or that only confuse a reader
 * (the C0 set other than tab and newlines, DEL). Stripped from every string we accept.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;

export const stripControl = (value: string) => value.replace(CONTROL, '');

/** A string with control characters removed and surrounding whitespace trimmed. */
export const cleanString = () => z.string().overwrite(stripControl).trim();

/** A string with control characters removed, whitespace kept (code, logs). */
export const rawString = () => z.string().overwrite(stripControl);
