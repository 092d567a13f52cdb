import { describe, expect, it } from 'vitest';
import { GRAPH_PALETTES, styleEdge, styleNode } from './graph-palette';

/** WCAG's contrast ratio of two #rrggbb colours. */
function contrast(a: string, b: string): number {
  const luminance = (hex: string) => {
    const value = Number.parseInt(hex.slice(1), 16);
    const [r, g, bl] = [(value >> 16) & 255, (value >> 8) & 255, value & 255].map((channel) => {
      const c = channel / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    }) as [number, number, number];
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

/** The surfaces the canvas sits on in each theme (the page, the raised panel). */
const BACKGROUNDS = { light: ['#fafafa', '#ffffff'], dark: ['#09090b', '#18181b'] } as const;

describe('graph palettes', () => {
  for (const theme of ['light', 'dark'] as const) {
    const palette = GRAPH_PALETTES[theme];
    it(`keeps names and paths readable on the ${theme} theme’s surfaces`, () => {
      for (const background of BACKGROUNDS[theme]) {
        expect(contrast(palette.label, background)).toBeGreaterThanOrEqual(7);
        expect(contrast(palette.edgeActive, background)).toBeGreaterThan(contrast(palette.edge, background));
      }
      expect(contrast(palette.hoverText, palette.hoverBackground)).toBeGreaterThanOrEqual(7);
    });

    it(`fades a file away from the selection on the ${theme} theme: less contrast than a free file`, () => {
      for (const background of BACKGROUNDS[theme]) {
        expect(contrast(palette.dimmed, background)).toBeLessThan(contrast(palette.unlocked, background));
        expect(contrast(palette.unlocked, background)).toBeGreaterThanOrEqual(2);
      }
    });
  }
});

describe('styleNode', () => {
  const palette = GRAPH_PALETTES.light;
  const selection = { id: 'src/a.ts', near: new Set(['src/b.ts']) };

  it('draws a file in its lock’s colour, a free one in the free colour, named', () => {
    expect(styleNode('src/a.ts', { label: 'a.ts', lock: '#7c3aed' }, null, palette)).toEqual({
      label: 'a.ts',
      lock: '#7c3aed',
      color: '#7c3aed',
    });
    expect(styleNode('src/c.ts', { label: 'c.ts' }, null, palette)).toEqual({
      label: 'c.ts',
      color: palette.unlocked,
    });
  });

  it('while a file is selected: it stands out, its neighbours keep their names, the rest fade unnamed', () => {
    expect(styleNode('src/a.ts', { label: 'a.ts' }, selection, palette)).toMatchObject({
      highlighted: true,
      color: palette.unlocked,
    });
    expect(styleNode('src/b.ts', { label: 'b.ts', lock: '#0891b2' }, selection, palette)).toMatchObject({
      forceLabel: true,
      color: '#0891b2',
      label: 'b.ts',
    });
    expect(styleNode('src/c.ts', { label: 'c.ts', lock: '#0891b2' }, selection, palette)).toMatchObject({
      color: palette.dimmed,
      label: '',
    });
  });
});

describe('styleEdge', () => {
  const palette = GRAPH_PALETTES.dark;
  it('draws every import alike; while a file is selected, only its own, darker', () => {
    const selection = { id: 'a', near: new Set(['b']) };
    expect(styleEdge({}, { source: 'a', target: 'b' }, null, palette)).toEqual({ color: palette.edge });
    expect(styleEdge({}, { source: 'b', target: 'a' }, selection, palette)).toMatchObject({
      color: palette.edgeActive,
    });
    expect(styleEdge({}, { source: 'b', target: 'c' }, selection, palette)).toMatchObject({ hidden: true });
  });
});
