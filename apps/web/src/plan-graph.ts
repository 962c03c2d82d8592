import { layers } from './plan-layout.js';
import type { PlanVersion } from './run-events.js';

const SVG = 'http://www.w3.org/2000/svg';
const BOX_W = 150;
const BOX_H = 44;
const GAP_X = 40;
const GAP_Y = 24;

function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number>,
): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) el.setAttribute(key, String(value));
  return el;
}

/**
 * The plan as a left-to-right graph: one box per step (id and action, as text nodes), an arrow
 * per dependency; `status` colours a box as its step runs. SVG built with the DOM, no markup.
 */
export function planGraph(plan: PlanVersion, status: ReadonlyMap<string, string> = new Map()): SVGSVGElement {
  const depth = layers(plan);
  const rows = new Map<number, number>();
  const pos = new Map<string, { x: number; y: number }>();
  for (const step of plan.steps) {
    const col = depth.get(step.id) ?? 0;
    const row = rows.get(col) ?? 0;
    rows.set(col, row + 1);
    pos.set(step.id, { x: 10 + col * (BOX_W + GAP_X), y: 10 + row * (BOX_H + GAP_Y) });
  }
  const width = 20 + Math.max(1, ...[...depth.values()].map((d) => d + 1)) * (BOX_W + GAP_X);
  const height = 20 + Math.max(1, ...rows.values()) * (BOX_H + GAP_Y);
  const root = svg('svg', {
    viewBox: `0 0 ${width} ${height}`,
    width,
    height,
    role: 'img',
    class: 'plan-graph',
  });
  const title = svg('title', {});
  title.textContent = `plan v${plan.version}: ${plan.steps.map((s) => `${s.id} ${s.action}`).join(', ')}`;
  root.append(title);
  const defs = svg('defs', {});
  const marker = svg('marker', {
    id: 'arrow',
    viewBox: '0 0 10 10',
    refX: 10,
    refY: 5,
    markerWidth: 6,
    markerHeight: 6,
    orient: 'auto',
  });
  marker.append(svg('path', { d: 'M0,0 L10,5 L0,10 z', class: 'arrow-head' }));
  defs.append(marker);
  root.append(defs);
  for (const step of plan.steps) {
    const to = pos.get(step.id);
    for (const dep of step.dependsOn) {
      const from = pos.get(dep);
      if (from === undefined || to === undefined) continue;
      root.append(
        svg('line', {
          x1: from.x + BOX_W,
          y1: from.y + BOX_H / 2,
          x2: to.x,
          y2: to.y + BOX_H / 2,
          class: 'edge',
          'marker-end': 'url(#arrow)',
        }),
      );
    }
  }
  for (const step of plan.steps) {
    const p = pos.get(step.id);
    if (p === undefined) continue;
    const g = svg('g', { class: `node node-${status.get(step.id) ?? 'pending'}`, 'data-step': step.id });
    g.append(svg('rect', { x: p.x, y: p.y, width: BOX_W, height: BOX_H, rx: 6 }));
    const id = svg('text', { x: p.x + 8, y: p.y + 18, class: 'node-id' });
    id.textContent = step.id;
    const action = svg('text', { x: p.x + 8, y: p.y + 35, class: 'node-action' });
    action.textContent = step.action.length > 20 ? `${step.action.slice(0, 19)}…` : step.action;
    g.append(id, action);
    root.append(g);
  }
  return root;
}
