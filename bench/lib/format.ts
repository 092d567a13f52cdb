/** A plain-text table: the first column left-aligned, the others right-aligned. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const all = [header, ...rows];
  const widths = header.map((_, column) => Math.max(...all.map((row) => (row[column] ?? '').length)));
  const line = (row: readonly string[]) =>
    row
      .map((cell, column) => {
        const width = widths[column] ?? 0;
        return column === 0 ? cell.padEnd(width) : cell.padStart(width);
      })
      .join('  ')
      .trimEnd();
  const rule = widths.map((width) => '-'.repeat(width)).join('  ');
  return [line(header), rule, ...rows.map(line)].join('\n');
}

/** Milliseconds for a table cell: 1 decimal under 100 ms, whole numbers above. */
export function ms(value: number | null | undefined): string {
  if (value === null || value === undefined || Number.isNaN(value)) return '–';
  return value < 100 ? value.toFixed(1) : Math.round(value).toString();
}

export function int(value: number | null | undefined): string {
  if (value === null || value === undefined || Number.isNaN(value)) return '–';
  return Math.round(value).toLocaleString('en-US');
}

const LINE_WIDTH = 110;

/**
 * JSON as `biome format` writes it (2 spaces, arrays of plain values on one line when they fit in
 * 110 columns), so that the results file passes `biome check` as written.
 */
export function formatJson(value: unknown): string {
  const write = (node: unknown, indent: string, lineSoFar: number): string => {
    if (node === null || typeof node !== 'object') return JSON.stringify(node);
    const inner = `${indent}  `;
    if (Array.isArray(node)) {
      if (node.length === 0) return '[]';
      if (node.every((item) => item === null || typeof item !== 'object')) {
        const flat = `[${node.map((item) => JSON.stringify(item)).join(', ')}]`;
        if (lineSoFar + flat.length + 1 <= LINE_WIDTH) return flat;
        // Numbers that do not fit on one line fill the lines, several to a line.
        if (node.every((item) => typeof item === 'number')) {
          const lines: string[] = [];
          let line = '';
          for (const item of node.map((entry) => JSON.stringify(entry))) {
            if (line && inner.length + line.length + 2 + item.length + 1 > LINE_WIDTH) {
              lines.push(`${inner}${line},`);
              line = item;
            } else {
              line = line ? `${line}, ${item}` : item;
            }
          }
          return `[\n${lines.join('\n')}${lines.length ? '\n' : ''}${inner}${line}\n${indent}]`;
        }
      }
      const items = node.map((item) => `${inner}${write(item, inner, inner.length)}`);
      return `[\n${items.join(',\n')}\n${indent}]`;
    }
    const entries = Object.entries(node);
    if (entries.length === 0) return '{}';
    const lines = entries.map(([key, item]) => {
      const head = `${inner}${JSON.stringify(key)}: `;
      return `${head}${write(item, inner, head.length)}`;
    });
    return `{\n${lines.join(',\n')}\n${indent}}`;
  };
  return `${write(JSON.parse(JSON.stringify(value)), '', 0)}\n`;
}
