import { type LockState, shownHolder } from './lock-state';

/** Distinct hues that read on white and on each other; holders beyond them share. */
export const HOLDER_PALETTE = [
  '#7c3aed',
  '#0891b2',
  '#db2777',
  '#ea580c',
  '#16a34a',
  '#2563eb',
  '#ca8a04',
  '#dc2626',
  '#0d9488',
  '#c026d3',
  '#65a30d',
  '#4f46e5',
] as const;

/** A file nobody holds. */
export const UNLOCKED_COLOUR = '#a1a1aa';

function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 16777619);
  }
  return h >>> 0;
}

/**
 * A colour per holder: each prefers the palette slot its id hashes to and takes the next free one
 * when another holder has it (holders placed in id order), so the same holders always get the same
 * colours and a holder keeps its colour while others come and go, mostly.
 */
export function holderColours(holderIds: Iterable<string>): Map<string, string> {
  const ids = [...new Set(holderIds)].sort();
  const taken = new Set<number>();
  const colours = new Map<string, string>();
  for (const id of ids) {
    let slot = hash(id) % HOLDER_PALETTE.length;
    if (taken.size < HOLDER_PALETTE.length) {
      while (taken.has(slot)) slot = (slot + 1) % HOLDER_PALETTE.length;
      taken.add(slot);
    }
    colours.set(id, HOLDER_PALETTE[slot] as string);
  }
  return colours;
}

/** `colour` mixed with white: a reader's paler version of its holder's colour. */
export function paler(colour: string, amount = 0.55): string {
  const value = Number.parseInt(colour.slice(1), 16);
  const mix = (channel: number) => Math.round(channel + (255 - channel) * amount);
  const [r, g, b] = [(value >> 16) & 255, (value >> 8) & 255, value & 255].map(mix) as [
    number,
    number,
    number,
  ];
  return `#${((1 << 24) | (r << 16) | (g << 8) | b).toString(16).slice(1)}`;
}

/** One line of the legend: a holder, its colour and the files it holds. */
export interface LegendEntry {
  agent: { id: string; name: string };
  colour: string;
  writing: string[];
  reading: string[];
}

/** How the graph colours locked files, and the legend that explains it. */
export interface LockColouring {
  /** Locked files only: path → colour (solid for the writer, paler for a reader). */
  nodeColours: ReadonlyMap<string, string>;
  /** Every holder, by name. */
  legend: LegendEntry[];
}

/**
 * Colours each locked file by the holder the graph shows for it (the writer, else the latest reader):
 * solid when written, paler when only read. The legend lists every holder with the files it holds
 * (a reader of a file someone writes is listed too, though the file wears the writer's colour).
 */
export function colourLocks(state: LockState): LockColouring {
  const entries = new Map<string, LegendEntry>();
  for (const [path, holders] of Object.entries(state.files)) {
    for (const held of holders) {
      let entry = entries.get(held.agent.id);
      if (!entry) {
        entry = { agent: held.agent, colour: '', writing: [], reading: [] };
        entries.set(held.agent.id, entry);
      }
      (held.status === 'WRITING' ? entry.writing : entry.reading).push(path);
    }
  }
  const colours = holderColours(entries.keys());
  const nodeColours = new Map<string, string>();
  for (const [path, holders] of Object.entries(state.files)) {
    const shown = shownHolder(holders);
    const colour = shown && colours.get(shown.agent.id);
    if (shown && colour) nodeColours.set(path, shown.status === 'WRITING' ? colour : paler(colour));
  }
  const legend = [...entries.values()]
    .map((entry) => ({
      ...entry,
      colour: colours.get(entry.agent.id) ?? UNLOCKED_COLOUR,
      writing: entry.writing.sort(),
      reading: entry.reading.sort(),
    }))
    .sort((a, b) => a.agent.name.localeCompare(b.agent.name) || (a.agent.id < b.agent.id ? -1 : 1));
  return { nodeColours, legend };
}
