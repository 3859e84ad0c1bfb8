package dev.cuckoofilter.core.table;

/**
 * Buckets of {@code b} fingerprints of {@code f} bits, entry {@code s} at bits {@code [s*f, (s+1)*f)}
 * of its bucket. Compares a whole bucket at once with SWAR ("SIMD within a register") arithmetic: when
 * {@code b*f <= 57} one unaligned 8-byte load reads the bucket; wider buckets are read in groups of
 * {@code floor(57/f)} entries.
 */
final class PackedTable extends BucketTable {
  private final long fpMask;
  private final int bucketBits;
  private final boolean oneWindow;
  /** Entries per window and the number of windows per bucket. */
  private final int groupEntries;
  private final int groups;
  /** Per-group SWAR constants: a 1 in the lowest / highest bit of every field of the group. */
  private final long[] groupOnes;
  private final long[] groupHighs;
  /** The same constants for the one-window case, hoisted into fields for the hot path. */
  private final long ones;
  private final long highs;
  /** The table's bytes when it is one segment and one window per bucket (the hot path), else null. */
  private final byte[] flat;
  private final long flatBucketBits;
  /**
   * The table's bytes when it is one segment and two windows per bucket ({@code 57 < b*f <= 114}, e.g.
   * b = 4 with 15- to 28-bit fingerprints, the low false-positive rates), else null; with the second
   * window's bit offset and SWAR constants.
   */
  private final byte[] flat2;
  private final int secondWindowBit;
  private final long ones2;
  private final long highs2;

  PackedTable(BucketStorage storage, int bucketSize, int fingerprintBits) {
    super(storage, bucketSize, fingerprintBits);
    this.fpMask = (1L << fingerprintBits) - 1;
    this.bucketBits = bucketSize * fingerprintBits;
    this.oneWindow = bucketBits <= BucketStorage.MAX_WINDOW_BITS;
    this.groupEntries = Math.min(bucketSize, BucketStorage.MAX_WINDOW_BITS / fingerprintBits);
    this.groups = (bucketSize + groupEntries - 1) / groupEntries;
    this.groupOnes = new long[groups];
    this.groupHighs = new long[groups];
    for (int g = 0; g < groups; g++) {
      int entries = Math.min(groupEntries, bucketSize - g * groupEntries);
      long o = 0;
      for (int e = 0; e < entries; e++) {
        o |= 1L << (e * fingerprintBits);
      }
      groupOnes[g] = o;
      groupHighs[g] = o << (fingerprintBits - 1);
    }
    this.ones = groupOnes[0];
    this.highs = groupHighs[0];
    this.flat = oneWindow ? storage.singleSegment() : null;
    this.flatBucketBits = bucketBits;
    this.flat2 = groups == 2 ? storage.singleSegment() : null;
    this.secondWindowBit = groupEntries * fingerprintBits;
    this.ones2 = groupOnes[groups - 1];
    this.highs2 = groupHighs[groups - 1];
  }

  /** Bit {@code f-1} of every field of {@code x} that is exactly zero; other bits clear. */
  private long zeroFields(long x, long o, long h) {
    long lows = h - o; // the low f-1 bits of every field
    return ~(((x & lows) + lows) | x) & h;
  }

  /** Slot of the field whose top bit is the lowest set bit of {@code flags}. */
  private int slotOf(long flags, int group) {
    return group * groupEntries + (Long.numberOfTrailingZeros(flags) / fingerprintBits);
  }

  @Override
  public boolean containsEither(long bucket1, long bucket2, long fp) {
    byte[] a = flat;
    if (a != null) {
      long p1 = bucket1 * flatBucketBits;
      long p2 = bucket2 * flatBucketBits;
      long q = fp * ones;
      long x1 = (BucketStorage.readLong(a, (int) (p1 >>> 3)) >>> (p1 & 7)) ^ q;
      long x2 = (BucketStorage.readLong(a, (int) (p2 >>> 3)) >>> (p2 & 7)) ^ q;
      return ((((x1 - ones) & ~x1) | ((x2 - ones) & ~x2)) & highs) != 0;
    }
    byte[] b = flat2;
    if (b != null) {
      return twoWindowContains(b, bucket1 * flatBucketBits, fp) | twoWindowContains(b, bucket2 * flatBucketBits, fp);
    }
    if (oneWindow) {
      long q = fp * ones;
      long x1 = storage.window(bucket1, 0) ^ q;
      long x2 = storage.window(bucket2, 0) ^ q;
      // (x - ones) & ~x has a field's top bit set only if some field at or below it is zero.
      return ((((x1 - ones) & ~x1) | ((x2 - ones) & ~x2)) & highs) != 0;
    }
    return containsWide(bucket1, fp) | containsWide(bucket2, fp);
  }

  /** Whether the two-window bucket at bit {@code p} of {@code a} holds {@code fp}, without branches. */
  private boolean twoWindowContains(byte[] a, long p, long fp) {
    long p2 = p + secondWindowBit;
    long x = (BucketStorage.readLong(a, (int) (p >>> 3)) >>> (p & 7)) ^ (fp * ones);
    long y = (BucketStorage.readLong(a, (int) (p2 >>> 3)) >>> (p2 & 7)) ^ (fp * ones2);
    return ((((x - ones) & ~x) & highs) | (((y - ones2) & ~y) & highs2)) != 0;
  }

  @Override
  public int containsEitherAll(ProbeBlock block, int count, boolean[] results, int resultsOffset) {
    byte[] a = flat;
    if (a == null) {
      return super.containsEitherAll(block, count, results, resultsOffset);
    }
    long bits = flatBucketBits;
    long[] buckets1 = block.buckets1;
    long[] buckets2 = block.buckets2;
    long[] words1 = block.words1;
    long[] words2 = block.words2;
    // Bit positions first, then the reads alone (see ProbeBlock), then the comparisons on the words read.
    for (int k = 0; k < count; k++) {
      buckets1[k] *= bits;
      buckets2[k] *= bits;
    }
    for (int k = 0; k < count; k++) {
      words1[k] = BucketStorage.readLong(a, (int) (buckets1[k] >>> 3));
      words2[k] = BucketStorage.readLong(a, (int) (buckets2[k] >>> 3));
    }
    long[] fps = block.fingerprints;
    long o = ones;
    long h = highs;
    int found = 0;
    for (int k = 0; k < count; k++) {
      long q = fps[k] * o;
      long x1 = (words1[k] >>> (buckets1[k] & 7)) ^ q;
      long x2 = (words2[k] >>> (buckets2[k] & 7)) ^ q;
      boolean r = ((((x1 - o) & ~x1) | ((x2 - o) & ~x2)) & h) != 0;
      results[resultsOffset + k] = r;
      found += r ? 1 : 0;
    }
    return found;
  }

  @Override
  public void readBucketsAhead(ProbeBlock block, int count, boolean insert) {
    byte[] a = flat;
    if (a == null) {
      readBuckets(block, count);
      return;
    }
    long bits = flatBucketBits;
    long[] buckets1 = block.buckets1;
    long[] buckets2 = block.buckets2;
    long[] fps = block.fingerprints;
    long[] words1 = block.words1;
    long[] words2 = block.words2;
    int[] second = block.second;
    for (int k = 0; k < count; k++) {
      words1[k] = BucketStorage.readLong(a, (int) (buckets1[k] * bits >>> 3));
    }
    // Algorithms 1 and 3 stop at the first bucket when it has an empty entry (insert) or holds the
    // fingerprint (removal): there the second bucket is not needed, and at 64M keys the memory system's
    // random reads are the limit (a removal finds its copy in the first bucket about 2 times in 3).
    long o = ones;
    long h = highs;
    long compare = insert ? 0 : -1L;
    int m = 0;
    for (int k = 0; k < count; k++) {
      long x = (words1[k] >>> ((buckets1[k] * bits) & 7)) ^ (fps[k] * o & compare);
      second[m] = k;
      m += (((x - o) & ~x) & h) != 0 ? 0 : 1;
    }
    for (int j = 0; j < m; j++) {
      int k = second[j];
      words2[k] = BucketStorage.readLong(a, (int) (buckets2[k] * bits >>> 3));
    }
  }

  /**
   * {@link #tryInsert} ({@code insert}) or {@link #removeOne} on the flat table: one 8-byte read of the
   * bucket, the first empty entry or copy of {@code fp} found with SWAR, one 8-byte write.
   */
  private boolean updateFlat(long bucket, long fp, boolean insert) {
    byte[] a = flat;
    long p = bucket * flatBucketBits;
    int index = (int) (p >>> 3);
    int shift = (int) (p & 7);
    long raw = BucketStorage.readLong(a, index);
    long fields = zeroFields((raw >>> shift) ^ (insert ? 0 : fp * ones), ones, highs);
    if (fields == 0) {
      return false;
    }
    int bit = Long.numberOfTrailingZeros(fields) - (fingerprintBits - 1) + shift;
    BucketStorage.writeLong(a, index, insert ? raw | (fp << bit) : raw & ~(fpMask << bit));
    return true;
  }

  private boolean containsWide(long bucket, long fp) {
    long found = 0;
    int groupBits = groupEntries * fingerprintBits;
    for (int g = 0; g < groups; g++) {
      long o = groupOnes[g];
      long x = storage.window(bucket, g * groupBits) ^ (fp * o);
      found |= (x - o) & ~x & groupHighs[g];
    }
    return found != 0;
  }

  @Override
  public int count(long bucket, long fp) {
    int n = 0;
    int groupBits = groupEntries * fingerprintBits;
    for (int g = 0; g < groups; g++) {
      long o = groupOnes[g];
      long x = storage.window(bucket, g * groupBits) ^ (fp * o);
      n += Long.bitCount(zeroFields(x, o, groupHighs[g]));
    }
    return n;
  }

  @Override
  public boolean tryInsert(long bucket, long fp) {
    if (flat != null) {
      return updateFlat(bucket, fp, true);
    }
    int groupBits = groupEntries * fingerprintBits;
    for (int g = 0; g < groups; g++) {
      long empty = zeroFields(storage.window(bucket, g * groupBits), groupOnes[g], groupHighs[g]);
      if (empty != 0) {
        storage.write(bucket, slotOf(empty, g) * fingerprintBits, fingerprintBits, fp);
        return true;
      }
    }
    return false;
  }

  @Override
  public boolean tryInsertEither(long bucket1, long bucket2, long fp) {
    byte[] a = flat;
    if (a == null) {
      return super.tryInsertEither(bucket1, bucket2, fp);
    }
    // Both loads first, then the choice of bucket; the raw 8-byte words are modified and stored back
    // directly. C2 compiles the choice to a branch, which measured faster than an arithmetic select
    // (BENCHMARKS.md): predicted, it lets the CPU go on to the next inserts before the words arrive.
    long p1 = bucket1 * flatBucketBits;
    long p2 = bucket2 * flatBucketBits;
    int index1 = (int) (p1 >>> 3);
    int index2 = (int) (p2 >>> 3);
    int shift1 = (int) (p1 & 7);
    int shift2 = (int) (p2 & 7);
    long raw1 = BucketStorage.readLong(a, index1);
    long raw2 = BucketStorage.readLong(a, index2);
    long empty1 = zeroFields(raw1 >>> shift1, ones, highs);
    long empty2 = zeroFields(raw2 >>> shift2, ones, highs);
    boolean first = empty1 != 0;
    long empty = first ? empty1 : empty2;
    if (empty == 0) {
      return false;
    }
    int bit = Long.numberOfTrailingZeros(empty) - (fingerprintBits - 1) + (first ? shift1 : shift2);
    BucketStorage.writeLong(a, first ? index1 : index2, (first ? raw1 : raw2) | (fp << bit));
    return true;
  }

  @Override
  public boolean hasEmpty(long bucket) {
    int groupBits = groupEntries * fingerprintBits;
    long empty = 0;
    for (int g = 0; g < groups; g++) {
      empty |= zeroFields(storage.window(bucket, g * groupBits), groupOnes[g], groupHighs[g]);
    }
    return empty != 0;
  }

  @Override
  public int removeEither(long bucket1, long bucket2, long fp) {
    byte[] a = flat;
    if (a == null) {
      return super.removeEither(bucket1, bucket2, fp);
    }
    long p1 = bucket1 * flatBucketBits;
    long p2 = bucket2 * flatBucketBits;
    int index1 = (int) (p1 >>> 3);
    int index2 = (int) (p2 >>> 3);
    int shift1 = (int) (p1 & 7);
    int shift2 = (int) (p2 & 7);
    long raw1 = BucketStorage.readLong(a, index1);
    long raw2 = BucketStorage.readLong(a, index2);
    long q = fp * ones;
    long match1 = zeroFields((raw1 >>> shift1) ^ q, ones, highs);
    long match2 = zeroFields((raw2 >>> shift2) ^ q, ones, highs);
    // As in tryInsertEither: both loads first, then the choice of bucket, so that consecutive deletes
    // overlap their cache misses.
    boolean first = match1 != 0;
    long match = first ? match1 : match2;
    if (match == 0) {
      return 0;
    }
    int bit = Long.numberOfTrailingZeros(match) - (fingerprintBits - 1) + (first ? shift1 : shift2);
    BucketStorage.writeLong(a, first ? index1 : index2, (first ? raw1 : raw2) & ~(fpMask << bit));
    return first ? 1 : 2;
  }

  @Override
  public long swap(long bucket, int slot, long fp) {
    int bit = slot * fingerprintBits;
    long old = storage.window(bucket, bit) & fpMask;
    storage.write(bucket, bit, fingerprintBits, fp);
    return old;
  }

  @Override
  public void undoSwap(long bucket, int slot, long placed, long evicted) {
    storage.write(bucket, slot * fingerprintBits, fingerprintBits, evicted);
  }

  @Override
  public boolean removeOne(long bucket, long fp) {
    if (flat != null) {
      return updateFlat(bucket, fp, false);
    }
    int groupBits = groupEntries * fingerprintBits;
    for (int g = 0; g < groups; g++) {
      long o = groupOnes[g];
      long match = zeroFields(storage.window(bucket, g * groupBits) ^ (fp * o), o, groupHighs[g]);
      if (match != 0) {
        storage.write(bucket, slotOf(match, g) * fingerprintBits, fingerprintBits, 0);
        return true;
      }
    }
    return false;
  }

  @Override
  public int read(long bucket, long[] out) {
    int n = 0;
    for (int s = 0; s < bucketSize; s++) {
      long v = storage.window(bucket, s * fingerprintBits) & fpMask;
      if (v != 0) {
        out[n++] = v;
      }
    }
    return n;
  }

  @Override
  public int occupancy(long bucket) {
    int empty = 0;
    int groupBits = groupEntries * fingerprintBits;
    for (int g = 0; g < groups; g++) {
      empty += Long.bitCount(zeroFields(storage.window(bucket, g * groupBits), groupOnes[g], groupHighs[g]));
    }
    return bucketSize - empty;
  }

  @Override
  public String validate(long bucket) {
    return null; // every bit pattern is a valid packed bucket
  }

  @Override
  public long countOccupied() {
    if (!oneWindow) {
      return super.countOccupied();
    }
    long empty = 0;
    long m = bucketCount();
    for (long b = 0; b < m; b++) {
      empty += Long.bitCount(zeroFields(storage.window(b, 0), ones, highs));
    }
    return m * bucketSize - empty;
  }
}
