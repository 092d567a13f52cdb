import type { NodeHoverDrawingFunction, NodeLabelDrawingFunction } from 'sigma/rendering';
import type { Settings } from 'sigma/settings';
import type { GraphPalette } from './graph-palette';

/**
 * Which file names the canvas draws. Sigma splits the fitted view into cells of
 * `labelGridCellSize` px and names, per cell, the biggest files first: `labelDensity` of them at the
 * fitted zoom, that divided by the zoom-out ratio squared when zoomed out (rounded up: at least one)
 * and times the zoom-in factor squared when zoomed in. It names only files drawn at a size (Sigma's,
 * about the radius in px) of at least `labelRenderedSizeThreshold`, and the drawn size shrinks with
 * the square root of the zoom-out ratio. The smallest file is 3 there at the fitted zoom (in graphs
 * up to 500 files), so every file may be named in the fitted view, and zooming out drops the names
 * of the least linked files first.
 */
export const LABEL_SETTINGS = {
  labelGridCellSize: 60,
  labelRenderedSizeThreshold: 3,
} as const satisfies Partial<Settings>;

/**
 * Names per cell at the fitted zoom: up to 4 for a few dozen files, where there is room for every
 * name (files of one folder often share a cell), down to 1 from 120 files on, where a name per cell
 * is already more than a reader takes in.
 */
export const labelDensity = (files: number) => Math.min(4, Math.max(1, 120 / Math.max(files, 1)));

/** A file name the canvas drew: its text and the file's place in the canvas (CSS px). */
export interface DrawnLabel {
  label: string;
  x: number;
  y: number;
}

/** Drawn labels listed on the canvas element, at most (their count is always there). */
export const LISTED_LABELS = 200;

const PADDING = 2;

/**
 * Sigma's label and hover drawing, in the theme's colours, reporting what they drew on the canvas
 * element: `data-rendered-labels` (the names drawn in the last frame with where, JSON, the first
 * `LISTED_LABELS`), `data-rendered-label-count`, `data-label-colour`, `data-camera-ratio` (the zoom
 * they were drawn at: 1 fits the graph, more is zoomed out) and `data-hover-label` (the text drawn
 * for the file under the pointer: its full path). What a test reads there is what was painted, not
 * a copy of the data.
 */
export function createCanvasLabels(element: HTMLElement, palette: () => GraphPalette) {
  let frame: DrawnLabel[] = [];
  let colour = '';
  let hovered: string | null = null;

  const drawLabel: NodeLabelDrawingFunction = (context, data, settings) => {
    if (!data.label) return;
    const size = settings.labelSize;
    colour = settings.labelColor.color ?? palette().label;
    context.fillStyle = colour;
    context.font = `${settings.labelWeight} ${size}px ${settings.labelFont}`;
    context.fillText(data.label, data.x + data.size + 3, data.y + size / 3);
    frame.push({ label: data.label, x: Math.round(data.x), y: Math.round(data.y) });
  };

  /** The hovered (or selected) file: its full path in a box, in place of its name. */
  const drawHover: NodeHoverDrawingFunction = (context, data, settings) => {
    const colours = palette();
    const text = typeof data.key === 'string' ? data.key : data.label;
    const size = settings.labelSize;
    context.font = `${settings.labelWeight} ${size}px ${settings.labelFont}`;
    context.fillStyle = colours.hoverBackground;
    context.shadowOffsetX = 0;
    context.shadowOffsetY = 0;
    context.shadowBlur = 8;
    context.shadowColor = colours.hoverShadow;
    const radius = Math.max(data.size, size / 2) + PADDING;
    context.beginPath();
    if (text) {
      const boxWidth = Math.round(context.measureText(text).width + 5);
      const boxHeight = Math.round(size + 2 * PADDING);
      const half = boxHeight / 2;
      const angle = Math.asin(Math.min(1, half / radius));
      const dx = Math.sqrt(Math.abs(radius ** 2 - half ** 2));
      context.moveTo(data.x + dx, data.y + half);
      context.lineTo(data.x + radius + boxWidth, data.y + half);
      context.lineTo(data.x + radius + boxWidth, data.y - half);
      context.lineTo(data.x + dx, data.y - half);
      context.arc(data.x, data.y, radius, angle, -angle);
    } else {
      context.arc(data.x, data.y, data.size + PADDING, 0, Math.PI * 2);
    }
    context.closePath();
    context.fill();
    context.shadowBlur = 0;
    if (!text) return;
    context.fillStyle = colours.hoverText;
    context.fillText(text, data.x + data.size + 3, data.y + size / 3);
    if (data.key === hovered) element.dataset.hoverLabel = text;
  };

  const set = (name: string, value: string) => {
    if (element.dataset[name] !== value) element.dataset[name] = value;
  };

  return {
    drawLabel,
    drawHover,
    /** Sigma's `beforeRender`: a frame redraws every label. */
    startFrame: () => {
      frame = [];
    },
    /** Sigma's `afterRender`, with the camera's ratio. */
    endFrame: (cameraRatio: number) => {
      set('renderedLabelCount', String(frame.length));
      set('renderedLabels', JSON.stringify(frame.slice(0, LISTED_LABELS)));
      set('labelColour', colour);
      set('cameraRatio', cameraRatio.toFixed(2));
    },
    enterNode: (node: string) => {
      hovered = node;
    },
    leaveNode: () => {
      hovered = null;
      delete element.dataset.hoverLabel;
    },
    /** The renderer is gone: nothing is drawn any more. */
    clear: () => {
      frame = [];
      hovered = null;
      delete element.dataset.hoverLabel;
      delete element.dataset.renderedLabels;
      delete element.dataset.renderedLabelCount;
      delete element.dataset.labelColour;
      delete element.dataset.cameraRatio;
    },
  };
}
