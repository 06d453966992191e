import { entropy, SECRET_RULES, type SecretRule, type ValueInfo } from './rules.js';

/** Redactions made, by kind (`github-token: 2`). */
export type RedactionCounts = Record<string, number>;

/** What a redactor is built from: the `redact:` settings, already validated. */
export interface RedactorConfig {
  /** False: text passes through unchanged. */
  enabled: boolean;
  /** Extra patterns, each redacted as `[redacted:KIND]`. */
  patterns: readonly { kind: string; regex: string }[];
  /** Text never redacted: an exact string, or `/regex/` matched against the would-be redacted part. */
  allow: readonly string[];
}

export const DEFAULT_REDACTOR_CONFIG: RedactorConfig = { enabled: true, patterns: [], allow: [] };

/** `<private>…</private>`, and an unclosed `<private>` to the end: the user marked it as never to be kept. */
const PRIVATE_BLOCK = /<private>[\s\S]*?(?:<\/private>|$)/gi;

/**
 * The one redactor every writer passes text through before it reaches a file (events, captured
 * last words, memories) or the model (the SessionStart text): `<private>…</private>` blocks
 * removed, secrets replaced by `[redacted:KIND]` (rules.ts has the table and its sources).
 * Built once per process and home; `redact` is synchronous and allocation-light: with no rule's
 * keyword in the text (most tool calls), it costs one lower-casing and a few substring tests.
 */
export class Redactor {
  readonly enabled: boolean;
  private readonly rules: readonly SecretRule[];
  private readonly allowExact: ReadonlySet<string>;
  private readonly allowRegex: readonly RegExp[];
  /** Every rule keyword, longest first (keywordsIn). */
  private readonly keywordRegex: RegExp;
  /** Each keyword's keywords that are its prefixes, itself included. */
  private readonly prefixesOf: ReadonlyMap<string, readonly string[]>;

  constructor(config: RedactorConfig = DEFAULT_REDACTOR_CONFIG) {
    this.enabled = config.enabled;
    const extra = config.patterns.map(
      (p): SecretRule => ({ kind: p.kind, keywords: [], regex: new RegExp(p.regex, 'g') }),
    );
    this.rules = [...SECRET_RULES, ...extra];
    const keywords = [...new Set(this.rules.flatMap((r) => r.keywords))].sort((a, b) => b.length - a.length);
    this.keywordRegex = new RegExp(keywords.map(escapeRegex).join('|') || '$^', 'g');
    this.prefixesOf = new Map(keywords.map((k) => [k, keywords.filter((p) => k.startsWith(p))]));
    this.allowExact = new Set(config.allow.filter((a) => !isRegexText(a)));
    this.allowRegex = config.allow.filter(isRegexText).map((a) => new RegExp(a.slice(1, -1)));
  }

  /** `text` with private blocks removed and secrets replaced; `counts` (when given) gains what was done. */
  redact(text: string, counts?: RedactionCounts): string {
    if (!this.enabled || text.length === 0) return text;
    let out = text;
    if (out.includes('<') && /<private>/i.test(out)) {
      out = out.replace(PRIVATE_BLOCK, () => {
        bump(counts, 'private');
        return '';
      });
    }
    let present: ReadonlySet<string> | undefined;
    for (const rule of this.rules) {
      if (rule.keywords.length > 0) {
        present ??= this.keywordsIn(out);
        if (!rule.keywords.some((k) => (present as ReadonlySet<string>).has(k))) continue;
      }
      out = out.replace(rule.regex, (...args: unknown[]) => this.replacement(rule, args, counts));
    }
    return out;
  }

  /**
   * Which rule keywords the lower-cased text holds, in one pass (a test per keyword cost an event
   * a microsecond each over a 4 KB text, ~60 of them). At each hit the longest keyword there
   * matches, and every keyword that is a prefix of it is there too; the scan goes on from the
   * next character, so keywords that overlap are found. Computed once per text: what a
   * replacement adds (`[redacted:…-key]`) is never a secret, so no rule needs to see it.
   */
  private keywordsIn(text: string): ReadonlySet<string> {
    const found = new Set<string>();
    const lower = text.toLowerCase();
    const rx = this.keywordRegex;
    rx.lastIndex = 0;
    for (let m = rx.exec(lower); m !== null; m = rx.exec(lower)) {
      for (const k of this.prefixesOf.get(m[0]) ?? []) found.add(k);
      rx.lastIndex = m.index + 1;
    }
    return found;
  }

  /** What one match becomes: the match with its secret part replaced, or itself when a check keeps it. */
  private replacement(rule: SecretRule, args: unknown[], counts: RedactionCounts | undefined): string {
    const hasGroups = typeof args.at(-1) === 'object' && args.at(-1) !== null;
    const groups = (hasGroups ? args.at(-1) : {}) as Record<string, string | undefined>;
    const input = args.at(hasGroups ? -2 : -1) as string;
    const offset = args.at(hasGroups ? -3 : -2) as number;
    const match = args[0] as string;
    const pre = groups.pre ?? '';
    let secret: string;
    let at: number;
    let info: ValueInfo = {
      quoted: false,
      equals: false,
      before: input[offset - 1] ?? '',
      key: pre,
      name: groups.name ?? keyName(input, offset, pre),
    };
    if (groups.secret !== undefined) {
      secret = groups.secret;
      at = pre.length;
    } else if (groups.dq !== undefined || groups.sq !== undefined || groups.bare !== undefined) {
      const quoted = groups.bare === undefined;
      secret = groups.dq ?? groups.sq ?? groups.bare ?? '';
      at = match.indexOf(secret, pre.length);
      info = { ...info, quoted, equals: /=/.test(pre) };
    } else {
      secret = match;
      at = 0;
    }
    if (rule.minEntropy !== undefined && entropy(secret) < rule.minEntropy) return match;
    if (rule.accept && !rule.accept(secret, info)) return match;
    if (this.allowed(secret)) return match;
    bump(counts, rule.kind);
    return `${match.slice(0, at)}[redacted:${rule.kind}]${match.slice(at + secret.length)}`;
  }

  private allowed(secret: string): boolean {
    if (this.allowExact.has(secret)) return true;
    return this.allowRegex.some((r) => r.test(secret));
  }
}

/** The identifier a match's key word ends (`HEROKU_API_` before `KEY=`), joined to the word itself. */
function keyName(input: string, offset: number, pre: string): string {
  let start = offset;
  while (start > 0 && start > offset - 80 && /[A-Za-z0-9_.-]/.test(input[start - 1]!)) start--;
  const word = /^[A-Za-z0-9_.-]*/.exec(pre)?.[0] ?? '';
  return input.slice(start, offset) + word;
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function isRegexText(text: string): boolean {
  return text.length > 2 && text.startsWith('/') && text.endsWith('/');
}

function bump(counts: RedactionCounts | undefined, kind: string): void {
  if (counts) counts[kind] = (counts[kind] ?? 0) + 1;
}

/** Adds `more` into `into`. */
export function addCounts(into: RedactionCounts, more: RedactionCounts): RedactionCounts {
  for (const [kind, n] of Object.entries(more)) into[kind] = (into[kind] ?? 0) + n;
  return into;
}
