package dev.cuckoofilter.bench.paper;

import dev.cuckoofilter.core.hash.Addressing;
import dev.cuckoofilter.core.hash.CuckooHash;
import java.util.SplittableRandom;
import java.util.function.LongConsumer;

/**
 * The insert of filter-core's {@code CuckooFilter} on a plain array, for the ;login: Table 2 rows with
 * 2- and 3-bit fingerprints, which filter-core refuses (it accepts 4 to 32 bits: narrower ones are of no
 * use in a filter). Only what filling a table to its first failed insert needs, and exactly the
 * algorithm of filter-core without a stash ({@link CuckooAdapter#paperFaithful}):
 *
 * <ul>
 *   <li>the item hash, bucket, fingerprint and alternate bucket of {@link CuckooHash} and
 *       {@link Addressing} themselves, not copies;
 *   <li>an insert takes the first empty entry of the first bucket, else of the second; with both full
 *       it fails at {@code 2b} copies of the fingerprint, else kicks up to {@code maxKicks} times;
 *   <li>the kick policy: the starting bucket and each step's preferred entry from the same mix of
 *       fingerprint, bucket and step, the same one-move lookahead, and a failed chain undone.
 * </ul>
 *
 * <p>{@code MinimalCuckooTableTest} checks that it stores the same entries in the same places as
 * filter-core for the same keys and seeds, at the widths both accept.
 */
final class MinimalCuckooTable {
  /** One byte per entry: fingerprints of up to 8 bits, 0 = empty (as in filter-core). */
  static final int MAX_BITS = 8;

  private final byte[] entries; // entry s of bucket i at i * b + s
  private final long bucketCount;
  private final int bucketSize;
  private final int bucketSizeLog2;
  private final int fingerprintBits;
  private final long seed;
  private final int maxKicks;
  /** {@link Addressing#offset} per fingerprint, as filter-core keeps it for its large filters. */
  private final int[] offsets;
  private long size;

  /** The kick chain of the insert in progress, to undo it if it fails. */
  private final long[] kickBuckets;
  private final int[] kickSlots;
  private final byte[] kickEvicted;

  MinimalCuckooTable(int bucketSize, int fingerprintBits, long bucketCount, long seed, int maxKicks) {
    if (bucketSize != 2 && bucketSize != 4 && bucketSize != 8) {
      throw new IllegalArgumentException("bucketSize must be 2, 4 or 8, got " + bucketSize);
    }
    if (fingerprintBits < 1 || fingerprintBits > MAX_BITS) {
      throw new IllegalArgumentException("fingerprintBits must be between 1 and " + MAX_BITS + ", got "
          + fingerprintBits);
    }
    if (bucketCount < 2 || (bucketCount & 1) != 0 || bucketCount * bucketSize > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("bucketCount must be even and fit an array, got " + bucketCount);
    }
    this.entries = new byte[(int) (bucketCount * bucketSize)];
    this.bucketCount = bucketCount;
    this.bucketSize = bucketSize;
    this.bucketSizeLog2 = Integer.numberOfTrailingZeros(bucketSize);
    this.fingerprintBits = fingerprintBits;
    this.seed = seed;
    this.maxKicks = maxKicks;
    this.offsets = Addressing.offsets(fingerprintBits, bucketCount);
    this.kickBuckets = new long[maxKicks];
    this.kickSlots = new int[maxKicks];
    this.kickEvicted = new byte[maxKicks];
  }

  /** {@code CuckooFilter.add(long)}: false when the filter is full (then nothing changed). */
  boolean add(long key) {
    long hash = CuckooHash.hashLong(key, seed);
    long i1 = Addressing.bucketIndex(hash, bucketCount);
    long fp = Addressing.fingerprint(hash, fingerprintBits);
    return insert(i1, alternate(i1, fp), fp);
  }

  /** Adds random keys until the first insert fails, as {@link CuckooAdapter#fillToFailure}; returns the items. */
  long fillToFailure(SplittableRandom keys) {
    while (add(keys.nextLong())) {
      // the loop condition does the work
    }
    return size;
  }

  long size() {
    return size;
  }

  /** Items stored / entries, as {@code CuckooFilter.loadFactor()}. */
  double loadFactor() {
    return (double) size / entries.length;
  }

  /**
   * The entry code of every stored fingerprint (canonical bucket, then fingerprint: {@code (c << f) | (fp - 1)}),
   * buckets in order and entries in slot order: what {@code CuckooFilter.forEachEntryCode} reports.
   */
  void forEachEntryCode(LongConsumer consumer) {
    for (long b = 0; b < bucketCount; b++) {
      for (int s = 0; s < bucketSize; s++) {
        long fp = entries[index(b, s)] & 0xFF;
        if (fp != 0) {
          consumer.accept((Math.min(b, alternate(b, fp)) << fingerprintBits) | (fp - 1));
        }
      }
    }
  }

  private long alternate(long bucket, long fp) {
    return Addressing.alternateAt(bucket, offsets[(int) fp], bucketCount);
  }

  private int index(long bucket, int slot) {
    return (int) (bucket << bucketSizeLog2) + slot;
  }

  /** CuckooFilter.insert with a stash of 0 entries: Algorithm 1, and the undo of a failed chain. */
  private boolean insert(long i1, long i2, long fp) {
    if (tryInsert(i1, fp) || tryInsert(i2, fp)) {
      size++;
      return true;
    }
    if (count(i1, fp) + count(i2, fp) >= 2 * bucketSize) {
      return false; // the 2b-copy duplicate limit
    }
    long bucket = (kickRandom(fp, i1, -1) >>> 63) == 0 ? i1 : i2;
    long current = fp;
    int steps = 0;
    while (steps < maxKicks) {
      int slot = chooseKickSlot(bucket, (int) (kickRandom(current, bucket, steps) >>> (64 - bucketSizeLog2)));
      int at = index(bucket, slot);
      byte evicted = entries[at];
      entries[at] = (byte) current;
      kickBuckets[steps] = bucket;
      kickSlots[steps] = slot;
      kickEvicted[steps] = evicted;
      steps++;
      current = evicted & 0xFF;
      bucket = alternate(bucket, current);
      if (tryInsert(bucket, current)) {
        size++;
        return true;
      }
    }
    for (int s = steps - 1; s >= 0; s--) {
      entries[index(kickBuckets[s], kickSlots[s])] = kickEvicted[s];
    }
    return false;
  }

  /** The first empty entry, lowest slot first (filter-core's SWAR search finds the same one). */
  private boolean tryInsert(long bucket, long fp) {
    int base = index(bucket, 0);
    for (int s = 0; s < bucketSize; s++) {
      if (entries[base + s] == 0) {
        entries[base + s] = (byte) fp;
        return true;
      }
    }
    return false;
  }

  private boolean hasEmpty(long bucket) {
    int base = index(bucket, 0);
    for (int s = 0; s < bucketSize; s++) {
      if (entries[base + s] == 0) {
        return true;
      }
    }
    return false;
  }

  private int count(long bucket, long fp) {
    int base = index(bucket, 0);
    int n = 0;
    for (int s = 0; s < bucketSize; s++) {
      n += (entries[base + s] & 0xFF) == fp ? 1 : 0;
    }
    return n;
  }

  /**
   * CuckooFilter.chooseKickSlot: the first entry from {@code preferred} on whose alternate bucket has room,
   * else {@code preferred}. The bucket is full here, so entry k of filter-core's compacted read is slot k.
   */
  private int chooseKickSlot(long bucket, int preferred) {
    int base = index(bucket, 0);
    int movable = 0;
    for (int k = 0; k < bucketSize; k++) {
      movable |= hasEmpty(alternate(bucket, entries[base + k] & 0xFF)) ? 1 << k : 0;
    }
    if (movable == 0) {
      return preferred;
    }
    int mask = (1 << bucketSize) - 1;
    int rotated = ((movable >>> preferred) | (movable << (bucketSize - preferred))) & mask;
    return (preferred + Integer.numberOfTrailingZeros(rotated)) & (bucketSize - 1);
  }

  /** CuckooFilter.kickRandom (private there): the pseudo-random bits of the kick decisions. */
  private static long kickRandom(long fp, long bucket, int step) {
    long x = (bucket + step * 0x9E3779B97F4A7C15L) ^ (fp * 0xC2B2AE3D27D4EB4FL);
    x = (x ^ (x >>> 32)) * 0xD6E8FEB86659FD93L;
    return x ^ (x >>> 32);
  }
}
