import type { Settings } from 'sigma/settings';
import { describe, expect, it } from 'vitest';
import { createCanvasLabels, LISTED_LABELS, labelDensity } from './canvas-labels';
import { GRAPH_PALETTES } from './graph-palette';

/** A 2D context that keeps what was written with it. */
function fakeContext() {
  const texts: { text: string; fillStyle: string }[] = [];
  const context = {
    fillStyle: '',
    font: '',
    shadowOffsetX: 0,
    shadowOffsetY: 0,
    shadowBlur: 0,
    shadowColor: '',
    fillText(text: string) {
      texts.push({ text, fillStyle: String(context.fillStyle) });
    },
    measureText: (text: string) => ({ width: text.length * 6 }),
    beginPath() {},
    moveTo() {},
    lineTo() {},
    arc() {},
    closePath() {},
    fill() {},
  };
  return { context: context as unknown as CanvasRenderingContext2D, texts };
}

const settings = {
  labelSize: 12,
  labelWeight: 'normal',
  labelFont: 'sans-serif',
  labelColor: { color: '#123456' },
} as Settings;

const node = (key: string, label: string, x = 10, y = 20) => ({ key, label, x, y, size: 3, color: '#000' });

function setup() {
  const element = { dataset: {} as DOMStringMap } as HTMLElement;
  const labels = createCanvasLabels(element, () => GRAPH_PALETTES.dark);
  return { element, labels, ...fakeContext() };
}

describe('canvas labels', () => {
  it('reports the names drawn in the last frame, where, in which colour and at which zoom', () => {
    const { element, labels, context, texts } = setup();
    labels.startFrame();
    labels.drawLabel(context, node('src/a.ts', 'a.ts', 10.4, 20.6), settings);
    labels.drawLabel(context, node('src/b.ts', '', 30, 40), settings);
    labels.endFrame(1);
    expect(texts).toEqual([{ text: 'a.ts', fillStyle: '#123456' }]);
    expect(JSON.parse(element.dataset.renderedLabels ?? '')).toEqual([{ label: 'a.ts', x: 10, y: 21 }]);
    expect(element.dataset.renderedLabelCount).toBe('1');
    expect(element.dataset.labelColour).toBe('#123456');
    expect(element.dataset.cameraRatio).toBe('1.00');

    // The next frame draws none: none reported.
    labels.startFrame();
    labels.endFrame(2.89);
    expect(element.dataset.renderedLabels).toBe('[]');
    expect(element.dataset.renderedLabelCount).toBe('0');
    expect(element.dataset.cameraRatio).toBe('2.89');
  });

  it('lists a bounded number of names, and counts them all', () => {
    const { element, labels, context } = setup();
    labels.startFrame();
    for (let i = 0; i < LISTED_LABELS + 50; i++) labels.drawLabel(context, node(`f${i}`, `f${i}`), settings);
    labels.endFrame(1);
    expect(JSON.parse(element.dataset.renderedLabels ?? '')).toHaveLength(LISTED_LABELS);
    expect(element.dataset.renderedLabelCount).toBe(String(LISTED_LABELS + 50));
  });

  it('draws the full path of the file under the pointer, in the theme’s hover colour, and reports it', () => {
    const { element, labels, context, texts } = setup();
    labels.enterNode('src/lib/db.ts');
    labels.drawHover(context, node('src/lib/db.ts', 'db.ts'), settings);
    expect(texts).toEqual([{ text: 'src/lib/db.ts', fillStyle: GRAPH_PALETTES.dark.hoverText }]);
    expect(element.dataset.hoverLabel).toBe('src/lib/db.ts');
    // The selected file is drawn the same way, but it is not the one under the pointer.
    labels.drawHover(context, node('src/app.ts', 'app.ts'), settings);
    expect(element.dataset.hoverLabel).toBe('src/lib/db.ts');
    labels.leaveNode();
    expect(element.dataset.hoverLabel).toBeUndefined();
  });

  it('forgets everything when the renderer goes', () => {
    const { element, labels, context } = setup();
    labels.startFrame();
    labels.drawLabel(context, node('a', 'a'), settings);
    labels.endFrame(1);
    labels.clear();
    expect(element.dataset).toEqual({});
  });

  it('names up to four files per cell in a small graph, one from 120 files on', () => {
    expect(labelDensity(0)).toBe(4);
    expect(labelDensity(30)).toBe(4);
    expect(labelDensity(60)).toBe(2);
    expect(labelDensity(120)).toBe(1);
    expect(labelDensity(5_000)).toBe(1);
  });
});
