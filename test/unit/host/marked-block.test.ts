import { describe, expect, it } from 'vitest';
import {
  BLOCK_BODY,
  BLOCK_VERSION,
  blockBody,
  blockVersions,
  removeBlock,
  renderBlock,
  upsertBlock,
} from '../../../src/host/index.js';

describe('marked-block editor', () => {
  it('appends the block after one blank line to a file without markers, changing nothing else', () => {
    const original = '# Project\n\nOur rules.\n';
    const out = upsertBlock(original);
    expect(out.startsWith(original)).toBe(true);
    expect(out).toBe(`${original}\n${renderBlock()}\n`);
  });

  it('is idempotent', () => {
    const once = upsertBlock('# P\n');
    expect(upsertBlock(once)).toBe(once);
  });

  it('replaces every pair, whatever its version, keeping the text around them', () => {
    const old = (v: number) =>
      `<!-- firstlight:bootstrap v=${v} -->\nold text\n<!-- /firstlight:bootstrap -->`;
    const text = `top\n\n${old(0)}\n\nmiddle\n\n${old(0)}\n\nbottom\n`;
    const out = upsertBlock(text);
    expect(blockVersions(out)).toEqual([BLOCK_VERSION]);
    expect(out).toContain('top\n');
    expect(out).toContain('middle');
    expect(out).toContain('bottom\n');
    expect(out).not.toContain('old text');
  });

  it('removes only the block on uninstall', () => {
    const original = '# Project\n\nOur rules.\n';
    expect(removeBlock(upsertBlock(original))).toBe(original);
    expect(removeBlock(upsertBlock(''))).toBe('');
  });

  it('carries the seed doctrine markers', () => {
    for (const marker of [
      'bootstrap_session',
      'reflect',
      'recall',
      'observe',
      'FastMCP instructions',
      'mind_contract_available',
    ]) {
      expect(BLOCK_BODY).toContain(marker);
    }
    for (const fallback of [
      'get_system_prompt()',
      'context()',
      'list_memory_files()',
      'body-only',
      'do not impersonate',
      // The seed's step 3: a failing fallback is degraded too.
      'the fallback `get_system_prompt()` returns an error',
    ]) {
      expect(BLOCK_BODY).toContain(fallback);
    }
  });
});

describe('the bootstrap block per host (issue 37)', () => {
  it("names the tools as the one host reading the file offers them, and keeps the seed's lines", () => {
    const claude = blockBody('mcp__firstlight__');
    expect(claude).toContain('call `mcp__firstlight__bootstrap_session()` before the first');
    expect(claude).toContain('`mcp__firstlight__get_system_prompt()`, `mcp__firstlight__context()`');
    expect(claude).not.toMatch(/[^_]`bootstrap_session\(\)`/);
    for (const body of [claude, BLOCK_BODY]) {
      for (const kind of ['user_said', 'time_passed', 'ambient', 'internal']) expect(body).toContain(kind);
      expect(body).toMatch(
        /Efferent copy may mechanically cover `observe`.*\n?.*does not cover session\s+bootstrap, `reflect`, `recall`, or ordinary text replies/,
      );
    }
    // A file several hosts read: plain names, and how hosts prefix them.
    expect(BLOCK_BODY).toContain('call `bootstrap_session()` before');
    expect(BLOCK_BODY).toContain('`firstlight-bootstrap_session`');
  });
});
