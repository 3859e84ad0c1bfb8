package dev.cuckoofilter.core.table;

/**
 * The semi-sorting code of section 5.2 of the paper: the high 4 bits ("nibbles") of a bucket's four
 * fingerprints, sorted ascending (empty entries count as 0), are one of C(19, 4) = 3876 multisets, so
 * they fit a 12-bit code instead of 16 bits.
 *
 * <p>Code of the sorted nibbles {@code n0 <= n1 <= n2 <= n3}: map them to the strictly increasing
 * {@code n0 < n1+1 < n2+2 < n3+3} in {@code [0, 19)} and take that 4-combination's colexicographic
 * rank, {@code C(n0,1) + C(n1+1,2) + C(n2+2,3) + C(n3+3,4)}. Decoding is a 3876-entry table (7.6 KB,
 * L1-resident); encoding is four lookups in a binomial table.
 */
public final class SemiSortCodec {
  /** Number of distinct codes: C(16 + 4 - 1, 4). */
  public static final int CODES = 3876;
  /** Bits of a code. */
  public static final int CODE_BITS = 12;

  /** Code to nibbles, nibble k (ascending) at bits {@code [4k, 4k+4)}. */
  private static final short[] DECODE = new short[CODES];
  private static final int[][] BINOMIAL = new int[20][5];

  static {
    for (int n = 0; n < 20; n++) {
      BINOMIAL[n][0] = 1;
      for (int k = 1; k <= Math.min(n, 4); k++) {
        BINOMIAL[n][k] = BINOMIAL[n - 1][k - 1] + (k <= n - 1 ? BINOMIAL[n - 1][k] : 0);
      }
    }
    int seen = 0;
    for (int a = 0; a < 16; a++) {
      for (int b = a; b < 16; b++) {
        for (int c = b; c < 16; c++) {
          for (int d = c; d < 16; d++) {
            DECODE[encode(a, b, c, d)] = (short) (a | b << 4 | c << 8 | d << 12);
            seen++;
          }
        }
      }
    }
    if (seen != CODES) {
      throw new AssertionError("semi-sort table has " + seen + " entries");
    }
  }

  private SemiSortCodec() {}

  /** Code of sorted nibbles {@code a <= b <= c <= d}. */
  public static int encode(int a, int b, int c, int d) {
    return BINOMIAL[a][1] + BINOMIAL[b + 1][2] + BINOMIAL[c + 2][3] + BINOMIAL[d + 3][4];
  }

  /** The four sorted nibbles of {@code code}, nibble k at bits {@code [4k, 4k+4)}. */
  public static int decode(int code) {
    return DECODE[code] & 0xFFFF;
  }
}
