import { describe, expect, it } from 'vitest';
import { ago, clipText, escapeHtml, html, query, raw } from '../../../src/ui/html.js';

describe('ui html template', () => {
  it('escapes every interpolated value, and inserts nested markup as it is', () => {
    const name = '<script>alert("x")</script> & \'friends\'';
    const out = html`<p title="${name}">${name} ${html`<b>${'<i>'}</b>`}</p>`;
    expect(out.text).toBe(
      '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;friends&#39;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;friends&#39; <b>&lt;i&gt;</b></p>',
    );
  });

  it('joins arrays, drops null, undefined and booleans, and keeps raw() as given', () => {
    expect(html`${['a', html`<br>`, 'b']}${null}${undefined}${false}${true}${raw('<hr>')}`.text).toBe(
      'a<br>b<hr>',
    );
    expect(escapeHtml('a<b')).toBe('a&lt;b');
  });

  it('builds query strings from the non-empty values, encoded', () => {
    expect(query({ q: 'force push', type: '', page: 2, tag: undefined })).toBe('?q=force%20push&page=2');
    expect(query({ q: '' })).toBe('');
  });

  it('says how long ago, and clips text on one line', () => {
    const now = new Date('2026-11-28T12:00:00Z');
    expect(ago('2026-11-28T11:59:30Z', now)).toBe('30 s ago');
    expect(ago('2026-11-28T10:00:00Z', now)).toBe('2 h ago');
    expect(ago('2026-11-25T12:00:00Z', now)).toBe('3 d ago');
    expect(ago('not a date', now)).toBe('');
    expect(clipText('a\n  b   c', 10)).toBe('a b c');
    expect(clipText('abcdefghijkl', 5)).toBe('abcd…');
  });
});
