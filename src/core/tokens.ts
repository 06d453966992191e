/**
 * Token estimate: about four characters a token for English prose and JSON. Cheap and
 * monotonic, which is all budgets need; no tokenizer dependency.
 */
export function estimateTokens(text: string): number {
  return estimateTokensForChars(text.length);
}

/** The same estimate from a character count alone. */
export function estimateTokensForChars(chars: number): number {
  return Math.ceil(chars / 4);
}
