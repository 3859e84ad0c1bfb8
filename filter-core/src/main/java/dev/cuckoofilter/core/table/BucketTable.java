package dev.cuckoofilter.core.table;

/**
 * A cuckoo hash table of fingerprints: {@code bucketCount} buckets of {@code bucketSize} entries,
 * each entry empty (0) or holding an f-bit fingerprint in {@code [1, 2^f - 1]}. Subclasses decide how
 * a bucket is encoded in bits; the cuckoo algorithm itself (kicks, stash, rollback) lives in
 * {@code CuckooFilter} and only uses these bucket-level operations.
 *
 * <p>Fingerprints are passed as {@code long} so 32-bit fingerprints stay unsigned.
 */
public abstract class BucketTable {
  protected final BucketStorage storage;
  protected final int bucketSize;
  protected final int fingerprintBits;

  protected BucketTable(BucketStorage storage, int bucketSize, int fingerprintBits) {
    this.storage = storage;
    this.bucketSize = bucketSize;
    this.fingerprintBits = fingerprintBits;
  }

  /** Creates an empty table of the given variant. */
  public static BucketTable create(boolean semiSorted, long bucketCount, int bucketSize, int fingerprintBits,
      int maxSegmentBytes) {
    int bits = bucketBits(semiSorted, bucketSize, fingerprintBits);
    BucketStorage storage = new BucketStorage(bucketCount, bits, maxSegmentBytes);
    return wrap(semiSorted, storage, bucketSize, fingerprintBits);
  }

  /** Views existing storage as a table of the given variant. */
  public static BucketTable wrap(boolean semiSorted, BucketStorage storage, int bucketSize, int fingerprintBits) {
    if (storage.bucketBits() != bucketBits(semiSorted, bucketSize, fingerprintBits)) {
      throw new IllegalArgumentException("storage has " + storage.bucketBits() + "-bit buckets");
    }
    return semiSorted
        ? new SemiSortedTable(storage, fingerprintBits)
        : new PackedTable(storage, bucketSize, fingerprintBits);
  }

  /** Bits per bucket: {@code b*f} packed, {@code 4f - 4} semi-sorted (one bit per entry saved). */
  public static int bucketBits(boolean semiSorted, int bucketSize, int fingerprintBits) {
    return semiSorted ? SemiSortedTable.bucketBits(fingerprintBits) : bucketSize * fingerprintBits;
  }

  public final BucketStorage storage() {
    return storage;
  }

  public final long bucketCount() {
    return storage.bucketCount();
  }

  public final int bucketSize() {
    return bucketSize;
  }

  public final int fingerprintBits() {
    return fingerprintBits;
  }

  /** True if either bucket holds {@code fp}. Branch-free over the two bucket reads. */
  public abstract boolean containsEither(long bucket1, long bucket2, long fp);

  /**
   * Batch form of {@link #containsEither} over the first {@code count} keys of {@code block}:
   * {@code results[resultsOffset + k]} is set for each {@code k < count}; returns how many are true. All
   * buckets of the block are read first, in a loop that does nothing else, so their cache misses overlap;
   * the comparisons then find them in cache.
   */
  public int containsEitherAll(ProbeBlock block, int count, boolean[] results, int resultsOffset) {
    readBuckets(block, count);
    long[] buckets1 = block.buckets1;
    long[] buckets2 = block.buckets2;
    long[] fps = block.fingerprints;
    int found = 0;
    for (int k = 0; k < count; k++) {
      boolean r = containsEither(buckets1[k], buckets2[k], fps[k]);
      results[resultsOffset + k] = r;
      found += r ? 1 : 0;
    }
    return found;
  }

  /**
   * Reads the first 64 bits of both buckets of each of the block's first {@code count} keys into the block
   * (kept so the reads are not dropped), changing nothing else: a batched lookup's reads, and a batched
   * update's read-ahead, after which the updates find their buckets in cache.
   */
  public final void readBuckets(ProbeBlock block, int count) {
    long[] buckets1 = block.buckets1;
    long[] buckets2 = block.buckets2;
    long[] words1 = block.words1;
    long[] words2 = block.words2;
    for (int k = 0; k < count; k++) {
      words1[k] = storage.window(buckets1[k], 0);
      words2[k] = storage.window(buckets2[k], 0);
    }
  }

  /**
   * Read-ahead for a batched update of the block's first {@code count} keys: what {@link #readBuckets}
   * reads, except that a table able to tell from a key's first bucket alone that the update will stop
   * there (an empty entry for an insert, a copy of the fingerprint for a removal) may skip the second
   * bucket. Only a hint for the cache; the updates themselves read their buckets again.
   */
  public void readBucketsAhead(ProbeBlock block, int count, boolean insert) {
    readBuckets(block, count);
  }

  /** Number of entries of {@code bucket} equal to {@code fp}. */
  public abstract int count(long bucket, long fp);

  /** Stores {@code fp} in an empty entry of {@code bucket}; false if the bucket is full. */
  public abstract boolean tryInsert(long bucket, long fp);

  /**
   * Stores {@code fp} in an empty entry of {@code bucket1}, else of {@code bucket2}; false if both are
   * full. Implementations read both buckets before deciding, so the two memory accesses overlap.
   */
  public boolean tryInsertEither(long bucket1, long bucket2, long fp) {
    return tryInsert(bucket1, fp) || tryInsert(bucket2, fp);
  }

  /** True if {@code bucket} has an empty entry. */
  public abstract boolean hasEmpty(long bucket);

  /**
   * Replaces entry {@code slot} (in {@code [0, bucketSize)}) of a full bucket with {@code fp} and
   * returns the fingerprint it held. For semi-sorted buckets the slot indexes the sorted entries.
   */
  public abstract long swap(long bucket, int slot, long fp);

  /** Exactly reverts {@link #swap}: the bucket again holds {@code evicted} instead of {@code placed}. */
  public abstract void undoSwap(long bucket, int slot, long placed, long evicted);

  /** Removes one copy of {@code fp} from {@code bucket}; false if there is none. */
  public abstract boolean removeOne(long bucket, long fp);

  /**
   * Removes one copy of {@code fp} from {@code bucket1}, else from {@code bucket2}: returns 1 or 2 for
   * the bucket it was removed from, 0 if neither holds it. Both buckets are read before deciding.
   */
  public int removeEither(long bucket1, long bucket2, long fp) {
    if (removeOne(bucket1, fp)) {
      return 1;
    }
    return removeOne(bucket2, fp) ? 2 : 0;
  }

  /**
   * Copies the fingerprints of {@code bucket} (empty entries skipped) into {@code out}, which has room
   * for {@code bucketSize} values, and returns how many there are.
   */
  public abstract int read(long bucket, long[] out);

  /** Number of occupied entries in {@code bucket}. */
  public abstract int occupancy(long bucket);

  /**
   * Checks that {@code bucket} is a valid encoding (semi-sorted: a code in range and entries in
   * canonical order) and returns null, or a description of what is wrong.
   */
  public abstract String validate(long bucket);

  /** Number of occupied entries in the whole table. */
  public long countOccupied() {
    long n = 0;
    long m = bucketCount();
    for (long b = 0; b < m; b++) {
      n += occupancy(b);
    }
    return n;
  }

  /** A table of the same variant over a deep copy of this table's bits. */
  public final BucketTable copy() {
    return wrap(this instanceof SemiSortedTable, storage.copy(), bucketSize, fingerprintBits);
  }
}
