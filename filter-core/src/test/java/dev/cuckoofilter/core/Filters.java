package dev.cuckoofilter.core;

import java.util.SplittableRandom;

/** Filters used as test fixtures. */
final class Filters {
  private Filters() {}

  /** A small filter of the given variant, loaded to {@code load}, with {@code stashed} stash entries. */
  static CuckooFilter small(boolean semiSorted, int b, int f, long buckets, double load, int stashed, long seed) {
    CuckooFilter filter = CuckooFilter.builder().semiSorted(semiSorted).bucketSize(b).fingerprintBits(f)
        .bucketCount(buckets).stashCapacity(Math.max(stashed, 2)).maxKicks(stashed > 0 ? 20 : 500).seed(seed).build();
    SplittableRandom r = new SplittableRandom(seed);
    long target = (long) (filter.capacity() * load);
    while (filter.size() < target) {
      filter.add(r.nextLong());
    }
    if (stashed > 0) {
      while (filter.stashSize() < stashed) {
        filter.add(r.nextLong());
      }
    }
    return filter;
  }
}
