package dev.cuckoofilter.bench.paper;

import dev.cuckoofilter.bench.BenchFilter;

/**
 * A filter of the paper's comparison (section 7) with the bulk operations the experiments time. The
 * loops are plain one-call-per-key loops, as in the paper's benchmarks; every filter runs the same
 * loop, so the interface-call cost (a few ns) is the same for all of them.
 */
interface PaperFilter extends BenchFilter {
  /**
   * Items the filter is meant to hold: a cuckoo filter's entries (it stops earlier, at its first failed
   * insert), a Bloom filter's design capacity (the paper: 13 bits per item).
   */
  long capacity();

  /** The parameters that matter for the comparison, for the CSV files ("k = 9", "b = 4, f = 12"). */
  String configuration();

  /** Inserts {@code keys[from, to)} and returns the index of the first key not inserted ({@code to} if all were). */
  default int addAll(long[] keys, int from, int to) {
    for (int i = from; i < to; i++) {
      if (!add(keys[i])) {
        return i;
      }
    }
    return to;
  }

  /** Looks up every key; returns how many answered "maybe". */
  default int lookupAll(long[] keys) {
    int found = 0;
    for (long key : keys) {
      found += mightContain(key) ? 1 : 0;
    }
    return found;
  }

  /** Removes {@code keys[from, to)}; returns how many were removed. Only for filters that delete. */
  default int removeAll(long[] keys, int from, int to) {
    int removed = 0;
    for (int i = from; i < to; i++) {
      removed += remove(keys[i]) ? 1 : 0;
    }
    return removed;
  }
}
