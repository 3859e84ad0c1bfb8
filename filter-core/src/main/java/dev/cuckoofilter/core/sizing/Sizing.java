package dev.cuckoofilter.core.sizing;

/**
 * Sizing from the paper's analysis (section 5): the false-positive rate of Eq. (5), the fingerprint
 * width of Eq. (6), the space cost of Eq. (7) and the bucket-size choice of Fig. 3, with the table
 * sized for the requested items at a design load factor instead of rounded to a power of two.
 *
 * <p>The design load is the occupancy at which {@code n} inserts succeed reliably: a little below the
 * load at which the first insert fails (Fig. 2 and the ;login: article's Table 2), which grows with
 * the bucket size and, for short fingerprints, shrinks as tables grow. The values here were measured
 * with this implementation ({@code docs/SIZING.md}).
 */
public final class Sizing {
  /** Largest supported bucket count (bucket indexes are derived from 32 hash bits). */
  public static final long MAX_BUCKETS = 1L << 32;

  private Sizing() {}

  /**
   * Expected false-positive rate of a lookup when a fraction {@code load} of the entries is occupied.
   * A query matches a stored item only when both have the same fingerprint (probability
   * {@code p = 1/(2^f - 1)}: fingerprints are uniform over the non-zero values) and the same pair of
   * buckets (probability {@code 2/m}, since the pair is fixed by one bucket and the fingerprint). With
   * {@code n = load * b * m} items that is {@code 1 - (1 - 2p/m)^n}, which is {@code 1 - exp(-2 b load p)}
   * for the table sizes used ({@link #falsePositiveRate(int, long, long)} is the exact rate of a filter's
   * items in any table, stash included). Eq. (5)'s {@code 1 - (1 - p)^(2 b load)} counts the
   * {@code 2 b load} stored fingerprints as independent draws and overstates the rate for short fingerprints (b = 4,
   * f = 4, load 0.9: 0.392 against 0.381 measured, 0.381 here); from f = 8 on they differ by 0.2% or less.
   */
  public static double falsePositiveRate(int bucketSize, int fingerprintBits, double load) {
    double perEntry = 1.0 / ((double) (1L << fingerprintBits) - 1.0);
    double comparisons = 2.0 * bucketSize * Math.max(0.0, Math.min(1.0, load));
    return -Math.expm1(-comparisons * perEntry);
  }

  /**
   * Expected false-positive rate of a lookup in a table of {@code bucketCount} buckets that stores
   * {@code items} fingerprints (stash included) of {@code fingerprintBits} bits: each stored fingerprint
   * matches a query with probability {@code 2 / (m (2^f - 1))} (same fingerprint, same bucket pair), so
   * the rate is {@code 1 - (1 - 2 / (m (2^f - 1)))^items}. {@link #falsePositiveRate(int, int, double)} is
   * its limit in large tables; in tables of a few buckets, and with stashed items beyond a full table
   * (a load above 1), only this form is the rate the filter meets.
   */
  public static double falsePositiveRate(int fingerprintBits, long bucketCount, long items) {
    double perEntry = 1.0 / ((double) (1L << fingerprintBits) - 1.0);
    return -Math.expm1(items * Math.log1p(-2.0 / bucketCount * perEntry));
  }

  /**
   * The false-positive rate a table of {@code bucketCount} buckets delivers when filled to its
   * {@linkplain #designLoad design load}: {@link #falsePositiveRate(int, long, long)} (the exact rate) for
   * {@code designLoad * bucketSize * bucketCount} items. A table sized for {@code n} items holds them at or
   * below the design load, so its rate with {@code n} items is at most this. Sizing compares this rate,
   * not its large-table limit {@link #falsePositiveRate(int, int, double)}, with the target: in small
   * tables the limit is lower (10 buckets of 2, 6-bit fingerprints, 14 items: 0.04347 against 0.04354).
   */
  public static double designFalsePositiveRate(int bucketSize, int fingerprintBits, long bucketCount) {
    double items = designLoad(bucketSize, fingerprintBits, bucketCount) * bucketSize * bucketCount;
    double perEntry = 1.0 / ((double) (1L << fingerprintBits) - 1.0);
    return -Math.expm1(items * Math.log1p(-2.0 / bucketCount * perEntry));
  }

  /**
   * Load factor (occupied entries plus stash over entries) up to which a table of
   * {@code bucketCount} buckets, with the default stash, is designed to be filled: inserting
   * {@code designLoad * bucketCount * bucketSize} random items succeeds with high probability.
   *
   * <p>Measured first-failure loads with a 4-entry stash (minimum over repeated runs,
   * {@code docs/SIZING.md}): b = 2: 0.86-0.87; b = 4: 0.956-0.96 (0.948 with 4-bit fingerprints at
   * 2^23 buckets); b = 8: 0.985-0.99; small tables spread wider. The design loads keep a margin below.
   */
  public static double designLoad(int bucketSize, int fingerprintBits, long bucketCount) {
    int index = bucketSizeIndex(bucketSize);
    if (bucketCount < 64) {
      return new double[] {0.70, 0.85, 0.90}[index];
    }
    if (bucketCount < 1024) {
      return new double[] {0.78, 0.92, 0.96}[index];
    }
    if (fingerprintBits == 4) {
      return new double[] {0.84, 0.94, 0.975}[index];
    }
    return new double[] {0.84, 0.95, 0.98}[index];
  }

  /**
   * Shortest fingerprint that still reaches the design load in a table of {@code bucketCount}
   * buckets. Section 4 of the paper: items sharing both buckets collide, so {@code f} must grow like
   * {@code log(n) / b}. Measured with b = 2: 5-bit fingerprints fail early in some runs from 2^15
   * buckets on (58% load instead of 86%), 6 bits at 2^23; with b = 4, 4 bits reach 94.8% at 2^23.
   */
  public static int minFingerprintBits(int bucketSize, long bucketCount) {
    int log2 = 64 - Long.numberOfLeadingZeros(Math.max(1, bucketCount - 1));
    int bits;
    switch (bucketSizeIndex(bucketSize)) {
      case 0:
        bits = Math.max(6, (log2 + 8) / 4);
        break;
      case 1:
        bits = (log2 + 5) / 6;
        break;
      default:
        bits = (log2 + 7) / 8;
        break;
    }
    return Math.max(4, bits);
  }

  private static int bucketSizeIndex(int bucketSize) {
    switch (bucketSize) {
      case 2:
        return 0;
      case 4:
        return 1;
      case 8:
        return 2;
      default:
        throw new IllegalArgumentException("bucketSize must be 2, 4 or 8, got " + bucketSize);
    }
  }

  /** Bits per bucket for a variant. */
  public static int bucketBits(boolean semiSorted, int bucketSize, int fingerprintBits) {
    return semiSorted ? 12 + 4 * (fingerprintBits - 4) : bucketSize * fingerprintBits;
  }

  /** Buckets needed to hold {@code expectedItems} at the design load: even, at least 2. */
  public static long bucketCount(long expectedItems, int bucketSize, int fingerprintBits) {
    if (expectedItems <= 0) {
      throw new IllegalArgumentException("expectedItems must be positive, got " + expectedItems);
    }
    long m = bucketsAtDesignLoad(expectedItems, bucketSize, fingerprintBits);
    if (m > MAX_BUCKETS) {
      throw new IllegalArgumentException("expectedItems " + expectedItems + " needs " + m + " buckets of "
          + bucketSize + ", more than the supported " + MAX_BUCKETS + ": at most "
          + maxItems(bucketSize, fingerprintBits) + " items with bucketSize " + bucketSize
          + (fingerprintBits == 4 ? " and 4-bit fingerprints" : ""));
    }
    return m;
  }

  /** {@link #bucketCount} without the upper limit: may exceed {@link #MAX_BUCKETS}. */
  private static long bucketsAtDesignLoad(long expectedItems, int bucketSize, int fingerprintBits) {
    // The design load depends (weakly) on the table size; two rounds settle it.
    long m = evenAtLeastTwo((long) Math.ceil(expectedItems / (bucketSize * designLoad(bucketSize, fingerprintBits, Long.MAX_VALUE))));
    for (int round = 0; round < 3; round++) {
      double load = designLoad(bucketSize, fingerprintBits, m);
      long next = evenAtLeastTwo((long) Math.ceil(expectedItems / (bucketSize * load)));
      if (next == m) {
        break;
      }
      m = Math.max(m, next);
    }
    return m;
  }

  /**
   * The most items a filter of {@code bucketSize} can be sized for: {@link #MAX_BUCKETS} buckets at the
   * design load (with 4-bit fingerprints, whose design load is lower, a little fewer).
   */
  public static long maxItems(int bucketSize, int fingerprintBits) {
    long n = (long) Math.floor((double) MAX_BUCKETS * bucketSize * designLoad(bucketSize, fingerprintBits, MAX_BUCKETS));
    while (n > 1 && bucketsAtDesignLoad(n, bucketSize, fingerprintBits) > MAX_BUCKETS) {
      n--;
    }
    return n;
  }

  private static long evenAtLeastTwo(long m) {
    return Math.max(2, (m + 1) & ~1L);
  }

  /**
   * Smallest fingerprint width in {@code [4, 32]} whose false-positive rate at the design load is at
   * most {@code fpp}, or -1 if even 32 bits are not enough.
   *
   * @throws IllegalArgumentException if {@code expectedItems} is not positive or more than
   *     {@link #maxItems} for this bucket size
   */
  public static int fingerprintBits(long expectedItems, int bucketSize, double fpp) {
    checkFpp(fpp);
    bucketCount(expectedItems, bucketSize, 32); // the most items any width fits
    for (int f = 4; f <= 32; f++) {
      long m = bucketsAtDesignLoad(expectedItems, bucketSize, f);
      if (m <= MAX_BUCKETS && f >= minFingerprintBits(bucketSize, m)
          && designFalsePositiveRate(bucketSize, f, m) <= fpp) {
        return f;
      }
    }
    return -1;
  }

  /**
   * The smallest false-positive rate a filter of {@code bucketSize} for {@code expectedItems} items can
   * be sized for: that of 32-bit fingerprints at the design load.
   */
  public static double smallestFpp(long expectedItems, int bucketSize) {
    long m = bucketCount(expectedItems, bucketSize, 32);
    return designFalsePositiveRate(bucketSize, 32, m);
  }

  /**
   * Smallest fingerprint width whose false-positive rate at the design load of a table of
   * {@code bucketCount} buckets is at most {@code fpp}, or -1 if 32 bits are not enough.
   */
  public static int fingerprintBitsForTable(int bucketSize, double fpp, long bucketCount) {
    checkFpp(fpp);
    for (int f = Math.max(4, minFingerprintBits(bucketSize, bucketCount)); f <= 32; f++) {
      if (designFalsePositiveRate(bucketSize, f, bucketCount) <= fpp) {
        return f;
      }
    }
    return -1;
  }

  /** A sizing decision. */
  public record Choice(int bucketSize, int fingerprintBits, long bucketCount, double bitsPerItem, double fpp) {}

  /**
   * Chooses the bucket size in {2, 4, 8} and the fingerprint width that give the fewest bits per item
   * for {@code fpp} (Fig. 3 of the paper: b = 4 mostly, b = 2 in narrow windows of rates down to about
   * 0.01%, b = 8 rarely; see docs/SIZING.md), and
   * the bucket count for {@code expectedItems}. Ties go to b = 4, the paper's default. Bucket sizes
   * whose table would need more than {@link #MAX_BUCKETS} buckets are left out, so the largest filters
   * get b = 4 or b = 8.
   *
   * @throws IllegalArgumentException if no bucket size holds {@code expectedItems} or reaches {@code fpp}
   */
  public static Choice choose(long expectedItems, double fpp, boolean semiSorted) {
    checkFpp(fpp);
    if (expectedItems <= 0) {
      throw new IllegalArgumentException("expectedItems must be positive, got " + expectedItems);
    }
    Choice best = null;
    int[] sizes = semiSorted ? new int[] {4} : new int[] {4, 2, 8};
    double smallestFpp = Double.NaN;
    for (int b : sizes) {
      if (expectedItems > maxItems(b, 32)) {
        continue; // too many items for this bucket size
      }
      Choice c = forBucketSize(expectedItems, b, fpp, semiSorted);
      if (c == null) {
        double min = smallestFpp(expectedItems, b);
        smallestFpp = Double.isNaN(smallestFpp) ? min : Math.min(smallestFpp, min);
      } else if (best == null || c.bitsPerItem() < best.bitsPerItem() * 0.999) {
        best = c;
      }
    }
    if (best != null) {
      return best;
    }
    if (Double.isNaN(smallestFpp)) {
      int b = semiSorted ? 4 : 8;
      throw new IllegalArgumentException("expectedItems must be at most " + maxItems(b, 32) + " (" + MAX_BUCKETS
          + " buckets of " + b + (semiSorted ? ", semi-sorted" : "") + "), got " + expectedItems);
    }
    throw new IllegalArgumentException("fpp " + fpp + " is below what 32-bit fingerprints can deliver: fpp must be "
        + "at least " + smallestFpp + " for " + expectedItems + (expectedItems == 1 ? " item" : " items"));
  }

  /** Sizing for a fixed bucket size, or null if {@code fpp} cannot be reached with 32-bit fingerprints. */
  public static Choice forBucketSize(long expectedItems, int bucketSize, double fpp, boolean semiSorted) {
    int f = fingerprintBits(expectedItems, bucketSize, fpp);
    if (f < 0) {
      return null;
    }
    long m = bucketCount(expectedItems, bucketSize, f);
    double bits = (double) m * bucketBits(semiSorted, bucketSize, f) / expectedItems;
    return new Choice(bucketSize, f, m, bits, designFalsePositiveRate(bucketSize, f, m));
  }

  static void checkFpp(double fpp) {
    if (!(fpp > 0.0 && fpp < 1.0)) {
      throw new IllegalArgumentException("fpp must be in (0, 1), got " + fpp);
    }
  }
}
