/** All AutoCoder task branches live under this prefix. */
export const BRANCH_PREFIX = 'autocoder/';

const MAX_SLUG = 30;

/**
 * The branch of a task's runs: `autocoder/<slug>-<id>`, where the slug is the title in
 * lowercase ASCII words joined by `-` (at most 30 characters, `task` when nothing is left) and
 * the id is the first 8 alphanumeric characters of `id`. The result is a valid git branch name
 * for any input, since only `[a-z0-9-]` and `[A-Za-z0-9]` survive and no part starts or ends
 * with `-`.
 */
export function branchName(taskTitle: string, id: string): string {
  const slug = slugify(taskTitle) || 'task';
  const shortId = id.replace(/[^A-Za-z0-9]/g, '').slice(0, 8);
  return `${BRANCH_PREFIX}${shortId ? `${slug}-${shortId}` : slug}`;
}

function slugify(text: string): string {
  const words = text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '') // accents: "é" → "e"
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  let slug = '';
  for (const word of words) {
    const next = slug ? `${slug}-${word}` : word;
    if (next.length > MAX_SLUG) {
      // A first word longer than the budget is cut; later ones are dropped whole.
      if (!slug) slug = word.slice(0, MAX_SLUG);
      break;
    }
    slug = next;
  }
  return slug;
}
