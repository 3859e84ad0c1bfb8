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
    if (oneWindow) {
      long q = fp * ones;
      long x1 = storage.window(bucket1, 0) ^ q;
      long x2 = storage.window(bucket2, 0) ^ q;
      // (x - ones) & ~x has a field's top bit set only if some field at or below it is zero.
      return ((((x1 - ones) & ~x1) | ((x2 - ones) & ~x2)) & highs) != 0;
    }
    return containsWide(bucket1, fp) | containsWide(bucket2, fp);
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
