/**
 * Token estimate: about four characters a token for English prose and JSON. Cheap and
 * monotonic, which is all budgets need; no tokenizer dependency.
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
