/** One entry of a `WakeHeap`: when, and what to wake. */
export interface Wake<T> {
  readonly at: number;
  readonly item: T;
}

/**
 * A binary min-heap of wake times: the one timer of many waiting lanes is set to its top, so
 * thousands of waiting sends cost entries, not timers.
 *
 * @example
 * const wakes = new WakeHeap<string>(); wakes.push(20, 'b'); wakes.push(10, 'a'); wakes.pop()?.item // 'a'
 */
export class WakeHeap<T> {
  readonly #entries: Wake<T>[] = [];

  get size(): number {
    return this.#entries.length;
  }

  /** The earliest entry, left in place. */
  peek(): Wake<T> | undefined {
    return this.#entries[0];
  }

  push(at: number, item: T): void {
    const entries = this.#entries;
    entries.push({ at, item });
    let i = entries.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if ((entries[parent] as Wake<T>).at <= at) break;
      [entries[i], entries[parent]] = [entries[parent] as Wake<T>, entries[i] as Wake<T>];
      i = parent;
    }
  }

  /** Takes the earliest entry out. */
  pop(): Wake<T> | undefined {
    const entries = this.#entries;
    const top = entries[0];
    const last = entries.pop();
    if (top === undefined || last === undefined || entries.length === 0) return top;
    entries[0] = last;
    for (let i = 0; ; ) {
      const left = 2 * i + 1;
      const right = left + 1;
      let least = i;
      if (left < entries.length && (entries[left] as Wake<T>).at < (entries[least] as Wake<T>).at) least = left;
      if (right < entries.length && (entries[right] as Wake<T>).at < (entries[least] as Wake<T>).at) least = right;
      if (least === i) break;
      [entries[i], entries[least]] = [entries[least] as Wake<T>, entries[i] as Wake<T>];
      i = least;
    }
    return top;
  }
}
