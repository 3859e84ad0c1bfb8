package dev.cuckoofilter.bench.paper;

import dev.cuckoofilter.core.CuckooFilter;
import java.util.SplittableRandom;

/**
 * This project's filter in the comparison, built the paper's way: no stash, 500 kicks, so "full" is
 * the first failed insert (section 4: "until a single insertion relocates existing fingerprints more
 * than 500 times").
 */
final class CuckooAdapter implements PaperFilter {
  /** Section 4's "full" condition: an insert that relocates fingerprints more than this many times fails. */
  static final int MAX_KICKS = 500;

  final CuckooFilter filter;
  private boolean[] batchResults = new boolean[0];

  CuckooAdapter(CuckooFilter filter) {
    this.filter = filter;
  }

  /** A filter that fails at its first failed kick chain, as the paper's. */
  static CuckooFilter paperFaithful(int bucketSize, int fingerprintBits, boolean semiSorted, long buckets, long seed) {
    CuckooFilter.Builder builder = CuckooFilter.builder().fingerprintBits(fingerprintBits).bucketCount(buckets)
        .stashCapacity(0).maxKicks(MAX_KICKS).seed(seed);
    return (semiSorted ? builder.semiSorted(true) : builder.bucketSize(bucketSize)).build();
  }

  /** Adds random keys until the first insert fails; returns the items stored. */
  static long fillToFailure(CuckooFilter filter, SplittableRandom keys) {
    while (filter.add(keys.nextLong())) {
      // the loop condition does the work
    }
    return filter.size();
  }

  /** Lookups through the batched API ({@code mightContainAll}); returns how many answered "maybe". */
  int lookupAllBatched(long[] keys) {
    if (batchResults.length < keys.length) {
      batchResults = new boolean[keys.length];
    }
    return filter.mightContainAll(keys, 0, keys.length, batchResults);
  }

  @Override
  public boolean add(long key) {
    return filter.add(key);
  }

  @Override
  public boolean mightContain(long key) {
    return filter.mightContain(key);
  }

  @Override
  public boolean remove(long key) {
    return filter.remove(key);
  }

  @Override
  public long bitSize() {
    return filter.bitSize();
  }

  @Override
  public String configuration() {
    var p = filter.parameters();
    return (p.semiSorted() ? "semi-sorted, " : "") + "b = " + p.bucketSize() + ", f = " + p.fingerprintBits() + ", "
        + p.bucketCount() + " buckets";
  }

  @Override
  public long capacity() {
    return filter.capacity();
  }
}
