/**
 * The Porter (1980) stemmer, used by recall (index and query alike, so its mistakes are
 * symmetric), the prediction-error measure and the resumption feel check. Dependency-free and
 * deterministic.
 *
 * Kept by hand, not taken from a package, because both packages measured do worse (same
 * session, bench/recall.mjs quality part and the words of docs/, examples/ and bench/fixtures/):
 * - `stemmer` 2.0.1 (wooorm, Porter 1980) gives the same 108 recall rankings, but its step 1c
 *   turns any final y into i after a vowel: "deploy" stems to "deploi" and "deployment" to
 *   "deploy", so a "deploy" or "ship" query misses a note about deployments (3 of 1,269
 *   conflated word pairs lost, none gained), and "try" no longer meets "tried".
 * - `wink-porter2-stemmer` 2.0.1 (Porter2) keeps the s of a plural without a vowel ("PRs" is
 *   not "PR"): recall@5 on the original queries falls from 0.790 to 0.783, multi-hop from
 *   0.667 to 0.625.
 * This one is Porter (1980) with Porter2's step 1c, which neither package offers.
 */

const VOWEL = /[aeiou]/;

function isConsonant(word: string, i: number): boolean {
  const c = word[i]!;
  if (VOWEL.test(c)) return false;
  if (c === 'y') return i === 0 ? true : !isConsonant(word, i - 1);
  return true;
}

/** m in Porter's [C](VC)^m[V]: the number of vowel-consonant sequences. */
function measure(stem: string): number {
  let m = 0;
  let i = 0;
  const n = stem.length;
  while (i < n && isConsonant(stem, i)) i++;
  while (i < n) {
    while (i < n && !isConsonant(stem, i)) i++;
    if (i >= n) break;
    while (i < n && isConsonant(stem, i)) i++;
    m++;
  }
  return m;
}

function hasVowel(stem: string): boolean {
  for (let i = 0; i < stem.length; i++) if (!isConsonant(stem, i)) return true;
  return false;
}

function endsDoubleConsonant(word: string): boolean {
  const n = word.length;
  return n >= 2 && word[n - 1] === word[n - 2] && isConsonant(word, n - 1);
}

/** *o: ends consonant-vowel-consonant, the last not w, x or y. */
function endsCvc(word: string): boolean {
  const n = word.length;
  if (n < 3) return false;
  const last = word[n - 1]!;
  return (
    isConsonant(word, n - 3) && !isConsonant(word, n - 2) && isConsonant(word, n - 1) && !/[wxy]/.test(last)
  );
}

function replaceSuffix(
  word: string,
  rules: readonly (readonly [string, string])[],
  minMeasure: number,
): string {
  for (const [suffix, replacement] of rules) {
    if (word.endsWith(suffix)) {
      const stem = word.slice(0, -suffix.length);
      return measure(stem) > minMeasure ? stem + replacement : word;
    }
  }
  return word;
}

const STEP2: readonly (readonly [string, string])[] = [
  ['ational', 'ate'],
  ['tional', 'tion'],
  ['enci', 'ence'],
  ['anci', 'ance'],
  ['izer', 'ize'],
  ['bli', 'ble'],
  ['alli', 'al'],
  ['entli', 'ent'],
  ['eli', 'e'],
  ['ousli', 'ous'],
  ['ization', 'ize'],
  ['ation', 'ate'],
  ['ator', 'ate'],
  ['alism', 'al'],
  ['iveness', 'ive'],
  ['fulness', 'ful'],
  ['ousness', 'ous'],
  ['aliti', 'al'],
  ['iviti', 'ive'],
  ['biliti', 'ble'],
  ['logi', 'log'],
];

const STEP3: readonly (readonly [string, string])[] = [
  ['icate', 'ic'],
  ['ative', ''],
  ['alize', 'al'],
  ['iciti', 'ic'],
  ['ical', 'ic'],
  ['ful', ''],
  ['ness', ''],
];

const STEP4 = [
  'al',
  'ance',
  'ence',
  'er',
  'ic',
  'able',
  'ible',
  'ant',
  'ement',
  'ment',
  'ent',
  'ion',
  'ou',
  'ism',
  'ate',
  'iti',
  'ous',
  'ive',
  'ize',
];

/** Every ending a rule of the stemmer removes or replaces (for tests of what stemming keeps). */
export const STEMMED_ENDINGS: readonly string[] = [
  'sses',
  'ies',
  'ss',
  's',
  'eed',
  'ed',
  'ing',
  'y',
  'e',
  'll',
  ...STEP2.map(([suffix]) => suffix),
  ...STEP3.map(([suffix]) => suffix),
  ...STEP4,
];

/** Stems one lower-case word; words under three letters and non-alphabetic tokens pass through. */
export function stem(word: string): string {
  if (word.length < 3 || !/^[a-z]+$/.test(word)) return word;
  let w = word;
  // Step 1a: plurals.
  if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.endsWith('ies')) w = w.slice(0, -2);
  else if (!w.endsWith('ss') && w.endsWith('s')) w = w.slice(0, -1);
  // Step 1b: -ed, -ing.
  let extra = false;
  if (w.endsWith('eed')) {
    if (measure(w.slice(0, -3)) > 0) w = w.slice(0, -1);
  } else if (w.endsWith('ed') && hasVowel(w.slice(0, -2))) {
    w = w.slice(0, -2);
    extra = true;
  } else if (w.endsWith('ing') && hasVowel(w.slice(0, -3))) {
    w = w.slice(0, -3);
    extra = true;
  }
  if (extra) {
    if (w.endsWith('at') || w.endsWith('bl') || w.endsWith('iz')) w += 'e';
    else if (endsDoubleConsonant(w) && !/[lsz]$/.test(w)) w = w.slice(0, -1);
    else if (measure(w) === 1 && endsCvc(w)) w += 'e';
  }
  // Step 1c, as Porter2 has it: y -> i only after a consonant that is not the first letter, so
  // "deploy" and "deployment" share a stem while "happy" and "happiness" still do.
  if (w.length > 2 && w.endsWith('y') && isConsonant(w, w.length - 2)) w = `${w.slice(0, -1)}i`;
  w = replaceSuffix(w, STEP2, 0);
  w = replaceSuffix(w, STEP3, 0);
  // Step 4: drop a suffix when the stem is long enough (m > 1).
  for (const suffix of STEP4) {
    if (!w.endsWith(suffix)) continue;
    const s = w.slice(0, -suffix.length);
    if (measure(s) > 1 && (suffix !== 'ion' || /[st]$/.test(s))) w = s;
    break;
  }
  // Step 5: a final e, and -ll.
  if (w.endsWith('e')) {
    const s = w.slice(0, -1);
    const m = measure(s);
    if (m > 1 || (m === 1 && !endsCvc(s))) w = s;
  }
  if (measure(w) > 1 && endsDoubleConsonant(w) && w.endsWith('l')) w = w.slice(0, -1);
  return w;
}
