import { describe, expect, it } from 'vitest';
import * as ui from '../../../src/ui/index.js';

describe('ui public face', () => {
  it('exports the server and the views, nothing else', () => {
    expect(Object.keys(ui).sort()).toEqual(['VIEWS', 'VIEW_IDS', 'serveUi']);
    expect(ui.VIEW_IDS).toEqual([
      'wakeup',
      'memory',
      'captured',
      'observations',
      'sessions',
      'runtime',
      'hosts',
    ]);
  });
});
