package dev.cuckoofilter.core.table;

/**
 * Semi-sorted buckets (section 5.2 of the paper) for {@code b = 4}: a bucket's four entries are kept
 * sorted ascending by value (empty = 0), the high 4 bits of the four entries are stored as one 12-bit
 * {@link SemiSortCodec} code and the low {@code f - 4} bits of each entry follow in sorted order:
 * {@code [code:12][low0][low1][low2][low3]}, {@code 4f - 4} bits instead of {@code 4f}.
 *
 * <p>Sorting by the full value (not only the nibble) makes the encoding canonical: a multiset of
 * fingerprints has exactly one bit pattern, which keeps filters byte-for-byte deterministic.
 * Works for every width {@code 4 <= f <= 32} (at {@code f = 4} there are no low bits).
 */
final class SemiSortedTable extends BucketTable {
  private final int lowBits;
  private final long lowMask;
  private final int bucketBits;
  private final boolean oneWindow;
  /** Scratch for the write paths only (writes are single-threaded by contract). */
  private final long[] scratch = new long[4];

  SemiSortedTable(BucketStorage storage, int fingerprintBits) {
    super(storage, 4, fingerprintBits);
    this.lowBits = fingerprintBits - 4;
    this.lowMask = (1L << lowBits) - 1;
    this.bucketBits = bucketBits(fingerprintBits);
    this.oneWindow = bucketBits <= BucketStorage.MAX_WINDOW_BITS;
  }

  static int bucketBits(int fingerprintBits) {
    return SemiSortCodec.CODE_BITS + 4 * (fingerprintBits - 4);
  }

  /** Entry {@code k} given the bucket's first window {@code w} and decoded nibbles. */
  private long entry(long bucket, long w, int nibbles, int k) {
    long nibble = (nibbles >>> (4 * k)) & 15;
    long low;
    if (oneWindow) {
      low = (w >>> (SemiSortCodec.CODE_BITS + k * lowBits)) & lowMask;
    } else {
      low = storage.window(bucket, SemiSortCodec.CODE_BITS + k * lowBits) & lowMask;
    }
    return (nibble << lowBits) | low;
  }

  private boolean containsOne(long bucket, long fp) {
    long w = storage.window(bucket, 0);
    int nibbles = SemiSortCodec.decode((int) (w & 0xFFF));
    int qn = (int) (fp >>> lowBits);
    // Exact per-nibble equality flags (bit 4k+3 set iff nibble k == qn).
    int x = nibbles ^ (qn * 0x1111);
    int t = ~(((x & 0x7777) + 0x7777) | x) & 0x8888;
    long ql = fp & lowMask;
    while (t != 0) {
      int k = Integer.numberOfTrailingZeros(t) >>> 2;
      long low = oneWindow
          ? (w >>> (SemiSortCodec.CODE_BITS + k * lowBits)) & lowMask
          : storage.window(bucket, SemiSortCodec.CODE_BITS + k * lowBits) & lowMask;
      if (low == ql) {
        return true;
      }
      t &= t - 1;
    }
    return false;
  }

  @Override
  public boolean containsEither(long bucket1, long bucket2, long fp) {
    return containsOne(bucket1, fp) | containsOne(bucket2, fp);
  }

  @Override
  public int count(long bucket, long fp) {
    long w = storage.window(bucket, 0);
    int nibbles = SemiSortCodec.decode((int) (w & 0xFFF));
    int n = 0;
    for (int k = 0; k < 4; k++) {
      if (entry(bucket, w, nibbles, k) == fp) {
        n++;
      }
    }
    return n;
  }

  @Override
  public int read(long bucket, long[] out) {
    long w = storage.window(bucket, 0);
    int nibbles = SemiSortCodec.decode((int) (w & 0xFFF));
    int n = 0;
    for (int k = 0; k < 4; k++) {
      long e = entry(bucket, w, nibbles, k);
      if (e != 0) {
        out[n++] = e;
      }
    }
    return n;
  }

  @Override
  public int occupancy(long bucket) {
    long w = storage.window(bucket, 0);
    int nibbles = SemiSortCodec.decode((int) (w & 0xFFF));
    int n = 0;
    for (int k = 0; k < 4; k++) {
      if (entry(bucket, w, nibbles, k) != 0) {
        n++;
      }
    }
    return n;
  }

  /** Decodes {@code bucket} into {@link #scratch}, sorted ascending. */
  private long[] load(long bucket) {
    long w = storage.window(bucket, 0);
    int nibbles = SemiSortCodec.decode((int) (w & 0xFFF));
    long[] e = scratch;
    for (int k = 0; k < 4; k++) {
      e[k] = entry(bucket, w, nibbles, k);
    }
    return e;
  }

  /** Sorts {@link #scratch} and writes it as {@code bucket}'s canonical encoding. */
  private void store(long bucket, long[] e) {
    sort4(e);
    int code = SemiSortCodec.encode((int) (e[0] >>> lowBits), (int) (e[1] >>> lowBits), (int) (e[2] >>> lowBits),
        (int) (e[3] >>> lowBits));
    if (oneWindow) {
      long bits = code;
      for (int k = 0; k < 4; k++) {
        bits |= (e[k] & lowMask) << (SemiSortCodec.CODE_BITS + k * lowBits);
      }
      storage.write(bucket, 0, bucketBits, bits);
    } else {
      storage.write(bucket, 0, SemiSortCodec.CODE_BITS, code);
      for (int k = 0; k < 4; k++) {
        storage.write(bucket, SemiSortCodec.CODE_BITS + k * lowBits, lowBits, e[k] & lowMask);
      }
    }
  }

  private static void sort4(long[] e) {
    compareSwap(e, 0, 1);
    compareSwap(e, 2, 3);
    compareSwap(e, 0, 2);
    compareSwap(e, 1, 3);
    compareSwap(e, 1, 2);
  }

  private static void compareSwap(long[] e, int i, int j) {
    long a = e[i];
    long b = e[j];
    if (a > b) {
      e[i] = b;
      e[j] = a;
    }
  }

  @Override
  public boolean tryInsert(long bucket, long fp) {
    long[] e = load(bucket);
    if (e[0] != 0) {
      return false; // sorted ascending, so a full bucket has no zero first entry
    }
    e[0] = fp;
    store(bucket, e);
    return true;
  }

  @Override
  public boolean hasEmpty(long bucket) {
    long w = storage.window(bucket, 0);
    // Sorted ascending: the bucket has an empty entry exactly when entry 0 is 0.
    return entry(bucket, w, SemiSortCodec.decode((int) (w & 0xFFF)), 0) == 0;
  }

  @Override
  public long swap(long bucket, int slot, long fp) {
    long[] e = load(bucket);
    long old = e[slot];
    e[slot] = fp;
    store(bucket, e);
    return old;
  }

  @Override
  public void undoSwap(long bucket, int slot, long placed, long evicted) {
    long[] e = load(bucket);
    for (int k = 0; k < 4; k++) {
      if (e[k] == placed) {
        e[k] = evicted;
        store(bucket, e);
        return;
      }
    }
    throw new IllegalStateException("undo of a kick found no copy of the placed fingerprint in bucket " + bucket);
  }

  @Override
  public boolean removeOne(long bucket, long fp) {
    long[] e = load(bucket);
    for (int k = 0; k < 4; k++) {
      if (e[k] == fp) {
        e[k] = 0;
        store(bucket, e);
        return true;
      }
    }
    return false;
  }

  @Override
  public String validate(long bucket) {
    long w = storage.window(bucket, 0);
    int code = (int) (w & 0xFFF);
    if (code >= SemiSortCodec.CODES) {
      return "semi-sorted bucket " + bucket + " has code " + code + ", above the largest code "
          + (SemiSortCodec.CODES - 1);
    }
    int nibbles = SemiSortCodec.decode(code);
    long previous = 0;
    for (int k = 0; k < 4; k++) {
      long e = entry(bucket, w, nibbles, k);
      if (e < previous) {
        return "semi-sorted bucket " + bucket + " is not in canonical (ascending) order";
      }
      previous = e;
    }
    return null;
  }
}
