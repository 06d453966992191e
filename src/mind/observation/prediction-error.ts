import { contentTerms, STOP_WORDS, stem, tokenize } from '../../core/text/index.js';

/**
 * `prediction_error`: how far a tool's `result` diverges from the `expected` text the agent
 * wrote before the call, in [0, 1]. A deterministic lexical measure, not a model: it cannot
 * read meaning, but it does read the three things that most often separate "as expected" from
 * "not at all": whether the outcome's polarity flipped (pass/fail, exists/missing, negations),
 * whether the numbers the agent predicted appear, and how many of the expected words the
 * result bears out. docs/memory.md explains the formula and its limits.
 *
 *   contradiction c = max(polarity, numbers)
 *   numbers       = mean over expected numbers of min(1, relative difference / NUMBER_SCALE)
 *                   to the nearest result number of the same unit (graded: 98 for 100 is small)
 *   divergence    d = 1 - containment(expected words in result), halved when
 *                   the result's outcome polarity agrees with the expectation's, and
 *                   halved again when its quantities are borne out (numbers <= 0.2)
 *   prediction_error = 1 - (1 - c) * (1 - LEXICAL_WEIGHT * d)
 *
 * Word overlap alone therefore tops out at LEXICAL_WEIGHT (0.6): a result that merely talks
 * about other things is "surprising", but only a contradiction crosses the 0.7 stop line.
 */

export const LEXICAL_WEIGHT = 0.6;
/** A polarity flip counts at least this much, plus a share for how one-sided the result is. */
const FLIP_FLOOR = 0.75;
export const PREDICTION_ERROR_MEASURE = 'lexical-polarity-numeric/2';
/** The protocol's stop line: above it, stop and re-plan. */
export const STOP_LINE = 0.7;
/** A number off by this relative amount (or more) counts as wholly wrong; less counts in proportion. */
export const NUMBER_SCALE = 0.5;

export interface PredictionError {
  value: number;
  measure: string;
  components: {
    /** 1 - share of the expected content words found in the result (before weighting). */
    lexical: number;
    /** Opposite outcome polarity (success vs failure, present vs missing), 0-1. */
    polarity: number;
    /** Share of the expected numbers missing from a result that does state numbers, 0-1. */
    numbers: number;
  };
}

const POSITIVE = [
  'pass passed passes passing success successful successfully succeed succeeded succeeds ok okay',
  'done complete completed completes finished finishes finish works worked working green valid ready',
  'exist exists existed found present available contains contained includes included healthy up running',
  'true yes allowed accepted approved merged created saved',
].join(' ');
const NEGATIVE = [
  'fail failed fails failing failure failures error errors errored exception exceptions crash crashed',
  'broken red invalid panic fatal traceback denied refused rejected timeout timedout unreachable',
  'missing absent enoent unavailable nonexistent gone empty nothing false down stopped dead',
  'forbidden unauthorized conflict aborted blocked',
].join(' ');
/** Words that flip the polarity word after them ("no errors", "not found", "0 failed"). */
const NEGATORS = new Set(['not', 'no', 'never', 'without', 'cannot', 'nor', 'none', 'neither', 'zero', '0']);
/** Negators that on their own assert absence ("no such file", "not there"). */
const ASSERTING_NEGATORS = new Set(['not', 'no', 'never', 'cannot', 'none', 'nothing']);

/** Surface forms to a concept via their stems, so "passes", "succeeded" and "ok" meet. */
const CONCEPT = new Map<string, 'POS' | 'NEG'>();
for (const w of POSITIVE.split(' ')) CONCEPT.set(stem(w), 'POS');
for (const w of NEGATIVE.split(' ')) CONCEPT.set(stem(w), 'NEG');

/** Divergence between `expected` and `result`; null when either is missing or blank. */
export function predictionError(
  expected: string | null | undefined,
  result: string | null | undefined,
): PredictionError | null {
  if (!expected?.trim() || result === undefined || result === null) return null;
  if (result.trim() === '') return emptyResult(expected);
  const pe = polarityOf(expected);
  const pr = polarityOf(result);
  const polarity = polarityConflict(pe, pr);
  const numbers = numberMismatch(expected, result);
  // A number the result repeats is a word borne out; one it does not is the numbers component's
  // (graded there), not a missing word here.
  const resultTerms = new Set(contentTerms(result).map(conceptual));
  const expectedTerms = new Set(
    contentTerms(expected)
      .map(conceptual)
      .filter((t) => !isNumber(t) || resultTerms.has(t)),
  );
  let lexical = 0;
  if (expectedTerms.size > 0) {
    let borne = 0;
    for (const t of expectedTerms) if (resultTerms.has(t)) borne++;
    lexical = 1 - borne / expectedTerms.size;
  }
  // As in polarityConflict, an expectation naming no outcome is read as expecting success.
  const expectedSign = pe.pos === 0 && pe.neg === 0 ? 1 : sign(pe);
  const agree = expectedSign !== 0 && sign(pr) !== 0 && Math.sign(expectedSign) === Math.sign(sign(pr));
  // A quantity borne out (the same number, or one close to it) confirms the prediction's point
  // as much as agreeing polarity does: each halves the weight of words the result leaves out.
  const quantitiesBorne = hasQuantities(expected) && hasQuantities(result) && numbers <= 0.2;
  const d = lexical / ((agree ? 2 : 1) * (quantitiesBorne ? 2 : 1));
  const c = Math.max(polarity, numbers);
  const value = 1 - (1 - c) * (1 - LEXICAL_WEIGHT * d);
  return {
    value: round(value),
    measure: PREDICTION_ERROR_MEASURE,
    components: { lexical: round(lexical), polarity: round(polarity), numbers: round(numbers) },
  };
}

interface Polarity {
  pos: number;
  neg: number;
}

/** Counts positive and negative outcome words per clause, with negators flipping the next one. */
export function polarityOf(text: string): Polarity {
  const out = { pos: 0, neg: 0 };
  for (const clause of text.split(/[.;!?\n]+|,\s+/)) {
    const tokens = tokenize(clause);
    for (let i = 0; i < tokens.length; i++) {
      const token = tokens[i]!;
      const concept = CONCEPT.get(stem(token));
      if (concept) {
        const negated = tokens.slice(Math.max(0, i - 3), i).some((t) => NEGATORS.has(t));
        const positive = (concept === 'POS') !== negated;
        if (positive) out.pos++;
        else out.neg++;
        continue;
      }
      if (ASSERTING_NEGATORS.has(token)) {
        const next = tokens.slice(i + 1, i + 4);
        const flipsOutcome = next.some((t) => CONCEPT.has(stem(t)));
        const assertsAbout = next.some((t) => !STOP_WORDS.has(t)) || token === 'none' || token === 'nothing';
        if (!flipsOutcome && assertsAbout) out.neg++;
      }
    }
  }
  return out;
}

function sign(p: Polarity): number {
  if (p.pos > 0 && p.neg === 0) return 1;
  if (p.neg > 0 && p.pos === 0) return -1;
  if (p.pos === 0 && p.neg === 0) return 0;
  return p.pos > p.neg ? 0.5 : p.neg > p.pos ? -0.5 : 0;
}

/**
 * An expectation that names no outcome is read as expecting success (nobody predicts "it runs"
 * meaning "it crashes"). A flip scores FLIP_FLOOR plus a share for how one-sided the result is.
 */
function polarityConflict(expected: Polarity, result: Polarity): number {
  const e = expected.pos === 0 && expected.neg === 0 ? 1 : sign(expected);
  const total = result.pos + result.neg;
  if (total === 0 || e === 0) return 0;
  const against = e > 0 ? result.neg : result.pos;
  if (against === 0) return 0;
  // A neutral expectation only conflicts with a result that is mostly failure.
  if (expected.pos === 0 && expected.neg === 0 && result.neg <= result.pos) return 0;
  return FLIP_FLOOR + (1 - FLIP_FLOOR) * (against / total);
}

/** A number, with the word after it (its unit or noun) when there is one: `3 results`, `1.5 s`. */
const NUMBER = /(?<![\p{L}\d.])(-?\d+(?:\.\d+)?)(?![\p{L}\d])\s*%?\s*(\p{L}+)?/gu;

interface Quantity {
  value: number;
  /** The stem of the word after the number, or ''. */
  unit: string;
}

function quantities(text: string): Quantity[] {
  return [...text.matchAll(NUMBER)].map((m) => ({
    value: Number(m[1]),
    unit: m[2] ? stem(m[2].toLowerCase()) : '',
  }));
}

/** |a − b| relative to the larger magnitude: 0 equal, 1 one of them zero or opposite signs. */
export function relativeDifference(a: number, b: number): number {
  const scale = Math.max(Math.abs(a), Math.abs(b));
  return scale === 0 ? 0 : Math.min(1, Math.abs(a - b) / scale);
}

/**
 * How far the expected numbers are from the result's, graded: each expected number is compared
 * with the nearest result number of the same unit (the word after it), else with the nearest
 * result number; a relative difference of d counts min(1, d / NUMBER_SCALE). The mean over the
 * expected numbers; 0 when either side states none.
 */
function numberMismatch(expected: string, result: string): number {
  const want = quantities(expected);
  if (want.length === 0) return 0;
  const have = quantities(result);
  if (have.length === 0) return 0;
  let total = 0;
  for (const q of want) {
    const sameUnit = q.unit ? have.filter((h) => h.unit === q.unit) : [];
    const pool = sameUnit.length > 0 ? sameUnit : have;
    const nearest = Math.min(...pool.map((h) => relativeDifference(q.value, h.value)));
    total += Math.min(1, nearest / NUMBER_SCALE);
  }
  return total / want.length;
}

const hasQuantities = (text: string) => quantities(text).length > 0;

const isNumber = (term: string) => /^-?\d+(?:\.\d+)?$/.test(term);

/** Content terms without bare numbers, outcome words folded into their two concepts. */
function wordTerms(text: string): string[] {
  return contentTerms(text)
    .filter((t) => !isNumber(t))
    .map(conceptual);
}

const EMPTINESS = /\b(empty|nothing|none|no output|no results?|silent|silently|blank|quiet)\b/i;

/**
 * An empty result: as predicted when the expectation says so ("prints nothing", "no output");
 * a miss when it predicted numbers (0.8: the count it named never came) or content (0.6, the
 * lexical ceiling: many commands print nothing on success); else 0.2.
 */
function emptyResult(expected: string): PredictionError {
  const named = quantities(expected);
  const counts = named.some((q) => q.value !== 0);
  const saysEmpty = EMPTINESS.test(expected) || (named.length > 0 && !counts);
  const content = wordTerms(expected).some((t) => !t.startsWith('#'));
  const value = saysEmpty ? 0 : counts ? 0.8 : content ? 0.6 : 0.2;
  return {
    value,
    measure: PREDICTION_ERROR_MEASURE,
    components: {
      lexical: saysEmpty ? 0 : content ? 1 : 0,
      polarity: 0,
      numbers: counts && !saysEmpty ? 1 : 0,
    },
  };
}

function conceptual(term: string): string {
  const concept = CONCEPT.get(term);
  return concept ? `#${concept}` : term;
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}
