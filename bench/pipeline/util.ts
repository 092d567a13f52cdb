// Small helpers the pipeline part's files share.

export const bump = (record: Record<string, number>, key: string) => {
  record[key] = (record[key] ?? 0) + 1;
};

/** `fn` over `items`, at most `concurrency` at a time; results in the order of `items`. */
export async function mapLimit<T, R>(items: readonly T[], concurrency: number, fn: (item: T) => Promise<R>) {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      for (let index = next++; index < items.length; index = next++) out[index] = await fn(items[index] as T);
    }),
  );
  return out;
}
