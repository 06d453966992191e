/**
 * A sorted list of strings kept as the one tab-separated string it was read as, with where each
 * starts: one string and one typed array for the collector rather than an object per item (a
 * one-shot recall reads 20,000 terms and 10,000 file names, and copying them between the young
 * generation's spaces cost it more than reading them). An item is sliced out when asked for.
 * `decode` turns an item's text into the item (JSON.parse for JSON-encoded names; the text itself
 * for words, which hold no tab).
 */
export class TabList {
  readonly length: number;
  private readonly text: string;
  private readonly starts: Int32Array;
  private readonly decode: ((text: string) => string) | undefined;

  constructor(text: string, decode?: (text: string) => string) {
    this.text = text;
    this.decode = decode;
    // One pass: the starts go into a buffer grown by doubling, then a view of its used part.
    let starts = new Int32Array(1024);
    let n = 0;
    if (text !== '') {
      for (let at = 0; ; ) {
        if (n + 1 >= starts.length) {
          const grown = new Int32Array(starts.length * 2);
          grown.set(starts);
          starts = grown;
        }
        starts[n++] = at;
        const tab = text.indexOf('\t', at);
        if (tab < 0) break;
        at = tab + 1;
      }
    }
    starts[n] = text.length + 1;
    this.length = n;
    this.starts = starts.subarray(0, n + 1);
  }

  /** Item i (undefined past the end). */
  at(i: number): string | undefined {
    if (i < 0 || i >= this.length) return undefined;
    const raw = this.text.slice(this.starts[i]!, this.starts[i + 1]! - 1);
    return this.decode ? this.decode(raw) : raw;
  }

  /** Whether item i starts with `prefix` (without slicing it out; for a list without decode). */
  startsWith(i: number, prefix: string): boolean {
    const from = this.starts[i]!;
    return from + prefix.length < this.starts[i + 1]! && this.text.startsWith(prefix, from);
  }

  /** Where `item` is (the list is sorted by code unit), or -1. */
  indexOf(item: string): number {
    let lo = 0;
    let hi = this.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.at(mid)! < item) lo = mid + 1;
      else hi = mid;
    }
    return lo < this.length && this.at(lo) === item ? lo : -1;
  }

  *[Symbol.iterator](): IterableIterator<string> {
    for (let i = 0; i < this.length; i++) yield this.at(i)!;
  }

  /** Items and their indexes, in order. */
  static join(items: readonly string[], encode?: (item: string) => string): string {
    return (encode ? items.map(encode) : items).join('\t');
  }
}
