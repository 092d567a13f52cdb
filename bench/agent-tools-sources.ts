// The source files of the agent-tools part's generated repository (bench/agent-tools-repo.ts):
// feature areas of models, services, components and tests that import one another and shared
// utilities, as a TypeScript back office would have them.
import path from 'node:path';

export const MONEY_MODULE = 'src/shared/money/format-money.ts';
export const DATE_MODULE = 'src/shared/dates/format-date.ts';
/** The file whose import the check finds broken (a typo in the module's name). */
export const BROKEN_FILE = 'src/orders/service/order-pricing.ts';
export const BROKEN_IMPORT = '../../shared/money/format-mony.js';

// biome-ignore format: a list of names
export const AREAS = [
  'accounts', 'audit', 'billing', 'catalog', 'checkout', 'comments', 'contracts', 'coupons', 'customers',
  'dashboards', 'exports', 'feeds', 'fulfilment', 'imports', 'inventory', 'invoices', 'ledger', 'loyalty',
  'mailing', 'media', 'notifications', 'orders', 'payments', 'pricing', 'projects', 'refunds', 'reports',
  'reviews', 'search', 'sessions', 'settings', 'shipping', 'subscriptions', 'suppliers', 'taxes', 'warehouses',
] as const;
export const ENTITIES = ['record', 'summary', 'filter', 'event', 'draft', 'snapshot', 'policy', 'batch'];
// biome-ignore format: a list of names
export const SERVICES = [
  'create', 'update', 'remove', 'list', 'find', 'validate', 'export', 'import', 'sync', 'notify', 'schedule',
  'archive', 'merge', 'pricing',
];
export const VIEWS = [
  'list',
  'detail',
  'form',
  'row',
  'badge',
  'dialog',
  'panel',
  'toolbar',
  'empty',
  'chart',
];
export const DOC_TOPICS = [
  'overview',
  'models',
  'services',
  'ui',
  'errors',
  'permissions',
  'migrations',
  'faq',
];
const SHARED: Record<string, string[]> = {
  money: ['format-money', 'parse-money', 'round-cents', 'currency', 'exchange', 'split-amount'],
  dates: ['format-date', 'parse-date', 'add-days', 'business-days', 'time-zone', 'relative-time'],
  text: ['slugify', 'truncate', 'pluralize', 'escape-html', 'highlight', 'initials'],
  collections: ['group-by', 'chunk', 'unique-by', 'sort-by', 'partition', 'index-by'],
  http: ['fetch-json', 'retry', 'query-string', 'headers', 'errors', 'pagination'],
  validation: ['email', 'iban', 'postcode', 'phone', 'required', 'ranges'],
  ids: ['ulid', 'short-id', 'checksum', 'hash', 'uuid', 'sequence'],
  logging: ['logger', 'levels', 'redact', 'timing', 'context', 'sink'],
  cache: ['lru', 'ttl', 'memo', 'keys', 'stats', 'warmup'],
  events: ['emitter', 'bus', 'queue', 'debounce', 'throttle', 'once'],
};

export const camel = (text: string) => text.replace(/-(\w)/g, (_, c: string) => c.toUpperCase());
export const pascal = (text: string) => camel(text).replace(/^\w/, (c) => c.toUpperCase());
/** The import specifier of `to` in `from` (`../shared/money/format-money.js`). */
export function relativeImport(from: string, to: string): string {
  const rel = path.posix.relative(path.posix.dirname(from), to.replace(/\.tsx?$/, '.js'));
  return rel.startsWith('.') ? rel : `./${rel}`;
}

/** Each shared module exports one function named after it (formatMoney, parseDate, …). */
export const sharedModules = Object.entries(SHARED).flatMap(([dir, names]) =>
  names.map((name) => ({ file: `src/shared/${dir}/${name}.ts`, fn: camel(name) })),
);

export function sharedModule(file: string, fn: string, n: number): string {
  if (file === MONEY_MODULE) {
    return [
      "import { roundCents } from './round-cents.js';",
      '',
      '/** Cents as a price: 123456 → "1,234.56 EUR". */',
      "export function formatMoney(cents: number, currency = 'EUR'): string {",
      '  const value = roundCents(cents) / 100;',
      "  const text = value.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });",
      `  return \`\${text} \${currency}\`;`,
      '}',
      '',
    ].join('\n');
  }
  if (file === DATE_MODULE) {
    return [
      "import { toTimeZone } from './time-zone.js';",
      '',
      '/** A date as YYYY-MM-DD in the given time zone. */',
      "export function formatDate(date: Date, zone = 'UTC'): string {",
      '  const local = toTimeZone(date, zone);',
      "  const pad = (value: number) => String(value).padStart(2, '0');",
      `  return \`\${local.getFullYear()}-\${pad(local.getMonth() + 1)}-\${pad(local.getDate())}\`;`,
      '}',
      '',
    ].join('\n');
  }
  const extra = file.endsWith('/time-zone.ts')
    ? ['', 'export function toTimeZone(date: Date, _zone: string): Date {', '  return new Date(date);', '}']
    : [];
  return [
    `/** ${fn}: a shared helper (${n}). */`,
    `export function ${fn}(input: number, factor = ${(n % 9) + 1}): number {`,
    `  if (!Number.isFinite(input)) throw new Error('${fn}: not a number');`,
    '  return Math.round(input * factor * 100) / 100;',
    '}',
    '',
    `export const ${fn}Defaults = { factor: ${(n % 9) + 1}, name: '${fn}' } as const;`,
    ...extra,
    '',
  ].join('\n');
}

export function model(area: string, entity: string, n: number): string {
  const type = `${pascal(area)}${pascal(entity)}`;
  const helper = sharedModules[n % sharedModules.length] ?? { file: MONEY_MODULE, fn: 'formatMoney' };
  return [
    "import { formatDate } from '../../shared/dates/format-date.js';",
    `import { ${helper.fn} } from '${relativeImport(`src/${area}/model/x.ts`, helper.file)}';`,
    '',
    `/** A ${entity} of ${area}. */`,
    `export interface ${type} {`,
    '  id: string;',
    '  createdAt: Date;',
    '  updatedAt: Date;',
    "  status: 'draft' | 'active' | 'archived';",
    '  totalCents: number;',
    '  tags: string[];',
    '}',
    '',
    `export function describe${type}(item: ${type}): string {`,
    `  const amount = ${helper.fn}(item.totalCents);`,
    `  return \`\${item.id} (\${item.status}) \${amount} since \${formatDate(item.createdAt)}\`;`,
    '}',
    '',
    `export function is${type}Active(item: ${type}): boolean {`,
    "  return item.status === 'active' && item.tags.length > 0;",
    '}',
    '',
  ].join('\n');
}

export const serviceFile = (area: string, name: string) =>
  `src/${area}/service/${area === 'orders' && name === 'pricing' ? 'order-pricing' : `${name}-${area}`}.ts`;

export function service(area: string, name: string, n: number): string {
  const entity = ENTITIES[n % ENTITIES.length] ?? 'record';
  const type = `${pascal(area)}${pascal(entity)}`;
  const helper = sharedModules[(n * 7) % sharedModules.length] ?? { file: MONEY_MODULE, fn: 'formatMoney' };
  const file = serviceFile(area, name);
  const money = file === BROKEN_FILE ? BROKEN_IMPORT : relativeImport(file, MONEY_MODULE);
  const fn = `${camel(name)}${pascal(area)}`;
  return [
    `import { formatMoney } from '${money}';`,
    `import { ${helper.fn} } from '${relativeImport(file, helper.file)}';`,
    `import { type ${type}, is${type}Active } from '../model/${area}-${entity}.js';`,
    '',
    `export interface ${pascal(fn)}Options {`,
    '  dryRun?: boolean;',
    '  limit?: number;',
    '}',
    '',
    `/** ${name} for ${area}: keeps the active ones and prices them. */`,
    `export async function ${fn}(items: ${type}[], options: ${pascal(fn)}Options = {}): Promise<string[]> {`,
    '  const out: string[] = [];',
    '  for (const item of items.slice(0, options.limit ?? 100)) {',
    `    if (!is${type}Active(item)) continue;`,
    `    const adjusted = ${helper.fn}(item.totalCents);`,
    `    out.push(\`\${item.id}: \${formatMoney(adjusted)}\`);`,
    '  }',
    '  if (options.dryRun) return [];',
    '  return out;',
    '}',
    '',
    `export function ${fn}Label(count: number): string {`,
    `  return count === 1 ? '1 ${area} item' : \`\${count} ${area} items\`;`,
    '}',
    '',
  ].join('\n');
}

export function view(area: string, name: string, n: number): string {
  const entity = ENTITIES[n % ENTITIES.length] ?? 'record';
  const type = `${pascal(area)}${pascal(entity)}`;
  const component = `${pascal(area)}${pascal(name)}`;
  return [
    `import { type ${type}, describe${type} } from '../model/${area}-${entity}.js';`,
    "import { truncate } from '../../shared/text/truncate.js';",
    '',
    `export interface ${component}Props {`,
    `  items: ${type}[];`,
    '  onSelect?: (id: string) => void;',
    '}',
    '',
    `export function ${component}({ items, onSelect }: ${component}Props) {`,
    '  return (',
    `    <section className="${area}-${name}">`,
    '      {items.map((item) => (',
    '        <button key={item.id} type="button" onClick={() => onSelect?.(item.id)}>',
    `          {truncate(describe${type}(item).length)}`,
    '        </button>',
    '      ))}',
    '    </section>',
    '  );',
    '}',
    '',
  ].join('\n');
}

export function serviceTest(area: string, name: string): string {
  const fn = `${camel(name)}${pascal(area)}`;
  return [
    "import { describe, expect, it } from 'vitest';",
    `import { ${fn}, ${fn}Label } from '${relativeImport(`test/${area}/x.test.ts`, serviceFile(area, name))}';`,
    '',
    `describe('${fn}', () => {`,
    "  it('returns nothing for no items', async () => {",
    `    expect(await ${fn}([])).toEqual([]);`,
    '  });',
    '',
    "  it('labels one item and many', () => {",
    `    expect(${fn}Label(1)).toBe('1 ${area} item');`,
    `    expect(${fn}Label(3)).toBe('3 ${area} items');`,
    '  });',
    '});',
    '',
  ].join('\n');
}

export function modelTest(area: string, entity: string): string {
  const type = `${pascal(area)}${pascal(entity)}`;
  return [
    "import { describe, expect, it } from 'vitest';",
    `import { is${type}Active } from '../../src/${area}/model/${area}-${entity}.js';`,
    '',
    `describe('${area} ${entity}', () => {`,
    "  it('is inactive as a draft', () => {",
    `    const draft = { id: 'x', createdAt: new Date(0), updatedAt: new Date(0), status: 'draft' as const, totalCents: 0, tags: [] };`,
    `    expect(is${type}Active(draft)).toBe(false);`,
    '  });',
    '});',
    '',
  ].join('\n');
}

export function doc(area: string, topic: string): string {
  return (
    `# ${area}: ${topic}\n\nHow ${area} handles ${topic}. Amounts are shown with \`formatMoney\`, dates with \`formatDate\`.\n\n` +
    `${SERVICES.map((name) => `- \`${camel(name)}${pascal(area)}\` (${serviceFile(area, name)})`).join('\n')}\n`
  );
}
