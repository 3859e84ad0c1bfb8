package dev.cuckoofilter.core.hash;

/**
 * How a 64-bit item hash maps into a table of {@code m} buckets (m even) with {@code f}-bit
 * fingerprints: partial-key cuckoo hashing (Eq. 1-2 of the paper), generalized to any even table size.
 *
 * <ul>
 *   <li>bucket {@code i1 = floor(hi32(h) * m / 2^32)}: the high 32 hash bits scaled to {@code [0, m)};
 *   <li>fingerprint {@code fp = floor(lo32(h) * (2^f - 1) / 2^32) + 1}: the low 32 bits scaled to
 *       {@code [1, 2^f - 1]}, uniform over the non-zero values (0 marks an empty entry);
 *   <li>alternate bucket {@code alt(i, fp) = (r(fp) - i) mod m} with the odd offset
 *       {@code r(fp) = 2 * floor(hi32(g(fp)) * (m/2) / 2^32) + 1}, where {@code g} mixes the fingerprint:
 *       {@code x = fp * 0x9E3779B97F4A7C15; g = (x ^ (x >>> 32)) * 0xD6E8FEB86659FD93} (mod 2^64).
 * </ul>
 *
 * <p>{@code alt} depends only on the current bucket and the fingerprint, is its own inverse
 * ({@code alt(alt(i, fp), fp) = i}), and never returns {@code i} itself ({@code 2i = r mod m} has no
 * solution for odd {@code r} and even {@code m}), so every item has two distinct buckets. It plays the
 * role of the paper's {@code i XOR hash(fp)}, which needs a power-of-two table. The fingerprint hash
 * must be a real mix, not just a multiplication: with multiplicative (Fibonacci) hashing alone the
 * offsets of different fingerprints form an arithmetic-like sequence, two-hop moves reach few distinct
 * buckets, and (2,4)-filters with 4- to 6-bit fingerprints reached only 77-93% load instead of 95%.
 */
public final class Addressing {
  private static final long FINGERPRINT_MULTIPLIER = 0x9E3779B97F4A7C15L;
  private static final long FINGERPRINT_MIX = 0xD6E8FEB86659FD93L;

  private Addressing() {}

  public static long bucketIndex(long hash, long bucketCount) {
    return ((hash >>> 32) * bucketCount) >>> 32;
  }

  public static long fingerprint(long hash, int fingerprintBits) {
    return (((hash & 0xFFFFFFFFL) * ((1L << fingerprintBits) - 1)) >>> 32) + 1;
  }

  public static long alternate(long bucket, long fingerprint, long bucketCount) {
    return alternateAt(bucket, offset(fingerprint, bucketCount), bucketCount);
  }

  /** The odd offset {@code r(fp)} in {@code [1, m)} of {@link #alternate}. */
  public static long offset(long fingerprint, long bucketCount) {
    long x = fingerprint * FINGERPRINT_MULTIPLIER;
    x = (x ^ (x >>> 32)) * FINGERPRINT_MIX;
    return (((x >>> 32) * (bucketCount >>> 1)) >>> 32) * 2 + 1;
  }

  /** {@code (offset - bucket) mod m}: {@link #alternate} given the fingerprint's {@link #offset}. */
  public static long alternateAt(long bucket, long offset, long bucketCount) {
    long j = offset - bucket;
    // Wrap around without a branch: its direction is random, and each misprediction would flush the
    // lookups the CPU runs ahead (in-cache lookups were 1.45x slower with the branch, BENCHMARKS.md).
    return j + ((j >> 63) & bucketCount);
  }

  /**
   * {@link #offset} of every value of {@code f} bits, indexed by fingerprint, for tables of at most
   * {@code Integer.MAX_VALUE} buckets: a filter can look an offset up in this table, which stays in cache,
   * instead of computing it with three dependent multiplications on every operation.
   */
  public static int[] offsets(int fingerprintBits, long bucketCount) {
    if (bucketCount > Integer.MAX_VALUE || fingerprintBits > 30) {
      throw new IllegalArgumentException("no offset table for " + bucketCount + " buckets and "
          + fingerprintBits + "-bit fingerprints");
    }
    int[] offsets = new int[1 << fingerprintBits];
    for (int fp = 0; fp < offsets.length; fp++) {
      offsets[fp] = (int) offset(fp, bucketCount);
    }
    return offsets;
  }
}
