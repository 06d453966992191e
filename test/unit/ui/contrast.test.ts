import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../helpers/index.js';

/**
 * WCAG 2 AA for the page's colours, light and dark: every text colour on every background it is
 * used on reaches 4.5:1. Read from the stylesheet itself, so a colour changed there is checked.
 */
const css = readFileSync(join(REPO_ROOT, 'assets', 'ui', 'ui.css'), 'utf8');

function palette(block: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of block.matchAll(/--([a-z-]+):\s*(#[0-9a-f]{6})/gi)) out[m[1]!] = m[2]!;
  return out;
}

function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = Number.parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}

function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi! + 0.05) / (lo! + 0.05);
}

/** Text colour → the backgrounds it sits on. */
const PAIRS: [string, string[]][] = [
  ['text', ['bg', 'card', 'code-bg', 'warn-bg', 'bad-bg', 'ok-bg']],
  ['muted', ['bg', 'card']],
  ['accent', ['bg', 'card']],
  ['ok', ['bg', 'card']],
  ['bad', ['bg', 'card', 'bad-bg']],
  ['warn', ['bg', 'card', 'warn-bg']],
  // Button labels: the page background's colour on the accent and danger buttons.
  ['bg', ['accent', 'bad']],
];

describe('ui colours', () => {
  const light = palette(/:root\s*{([^}]*)}/.exec(css)![1]!);
  const dark = palette(/prefers-color-scheme:\s*dark\)\s*{\s*:root\s*{([^}]*)}/.exec(css)![1]!);

  it.each([
    ['light', light],
    ['dark', dark],
  ])('%s: every text colour reaches 4.5:1 on its backgrounds', (_scheme, colours) => {
    const failing: string[] = [];
    for (const [fg, bgs] of PAIRS) {
      for (const bg of bgs) {
        const ratio = contrast(colours[fg]!, colours[bg]!);
        if (!(ratio >= 4.5)) failing.push(`--${fg} on --${bg}: ${ratio.toFixed(2)}`);
      }
    }
    expect(failing).toEqual([]);
  });
});
