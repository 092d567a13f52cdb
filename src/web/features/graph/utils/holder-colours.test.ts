import { describe, expect, it } from 'vitest';
import { colourLocks, HOLDER_PALETTE, holderColours, paler } from './holder-colours';
import type { HeldLock, LockState } from './lock-state';

const held = (id: string, status: HeldLock['status'], since = 1, name = id): HeldLock => ({
  agent: { id, name },
  status,
  message: `${name} works.`,
  since,
});

describe('holder colours', () => {
  it('gives distinct holders distinct colours from the palette, the same ones every time', () => {
    const ids = Array.from({ length: HOLDER_PALETTE.length }, (_, i) => `tok-${i}`);
    const colours = holderColours(ids);
    expect(new Set(colours.values()).size).toBe(ids.length);
    for (const colour of colours.values()) expect(HOLDER_PALETTE).toContain(colour);
    expect(holderColours([...ids].reverse())).toEqual(colours);
  });

  it('keeps a holder’s colour when a holder that did not share its slot comes or goes', () => {
    const alone = holderColours(['tok-alice']);
    const withBob = holderColours(['tok-alice', 'tok-bob']);
    expect(withBob.get('tok-alice')).toBe(alone.get('tok-alice'));
  });

  it('still colours every holder past the palette’s size', () => {
    const ids = Array.from({ length: HOLDER_PALETTE.length + 5 }, (_, i) => `agent-${i}`);
    expect([...holderColours(ids).values()]).toHaveLength(ids.length);
  });

  it('makes a reader’s colour paler, towards white', () => {
    expect(paler('#000000', 0.5)).toBe('#808080');
    expect(paler('#7c3aed', 0)).toBe('#7c3aed');
    expect(paler('#7c3aed', 1)).toBe('#ffffff');
  });
});

describe('colourLocks', () => {
  const state: LockState = {
    branch: 'main',
    files: {
      'src/a.ts': [held('tok-bob', 'READING', 5, 'Bob'), held('tok-alice', 'WRITING', 1, 'Alice')],
      'src/b.ts': [held('tok-bob', 'READING', 5, 'Bob')],
      'src/c.ts': [held('tok-alice', 'WRITING', 2, 'Alice')],
    },
  };

  it('colours a written file by its writer, a read one paler by its latest reader, and nothing else', () => {
    const { nodeColours, legend } = colourLocks(state);
    const colourOf = new Map(legend.map((entry) => [entry.agent.id, entry.colour]));
    expect(nodeColours.get('src/a.ts')).toBe(colourOf.get('tok-alice'));
    expect(nodeColours.get('src/c.ts')).toBe(colourOf.get('tok-alice'));
    expect(nodeColours.get('src/b.ts')).toBe(paler(colourOf.get('tok-bob') ?? ''));
    expect([...nodeColours.keys()].sort()).toEqual(['src/a.ts', 'src/b.ts', 'src/c.ts']);
    expect(colourOf.get('tok-alice')).not.toBe(colourOf.get('tok-bob'));
  });

  it('lists every holder by name with the files it writes and reads', () => {
    expect(
      colourLocks(state).legend.map(({ agent, writing, reading }) => ({
        name: agent.name,
        writing,
        reading,
      })),
    ).toEqual([
      { name: 'Alice', writing: ['src/a.ts', 'src/c.ts'], reading: [] },
      { name: 'Bob', writing: [], reading: ['src/a.ts', 'src/b.ts'] },
    ]);
    expect(colourLocks({ branch: 'main', files: {} })).toEqual({ nodeColours: new Map(), legend: [] });
  });
});
