package dev.cuckoofilter.bench.paper;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoofilter.core.CuckooFilter;
import java.util.SplittableRandom;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/**
 * The ;login: Table 2 rows f = 2, 3 come from {@link MinimalCuckooTable} because filter-core refuses
 * those widths; they are only worth something if it is filter-core's algorithm. Here both are filled
 * with the same keys and seeds to their first failed insert at the widths both accept: they must
 * store the same items and the same entries in the same order. Inserts take the first empty entry and
 * nothing is deleted, so the occupied entries of a bucket are its first slots, and equal sequences of
 * entries mean equal tables.
 */
class MinimalCuckooTableTest {
  @Test
  void fillsLikeFilterCoreAtFourToEightBits() {
    for (int f = 4; f <= MinimalCuckooTable.MAX_BITS; f++) {
      for (long seed = 0; seed < 3; seed++) {
        // 2^12 buckets: filter-core looks its alternate offsets up in a table; 3000: it computes them.
        assertSameFill(4, f, 1 << 12, seed);
        assertSameFill(4, f, 3000, seed);
      }
    }
  }

  @Test
  void fillsLikeFilterCoreWithBucketsOfTwoAndEight() {
    for (int b : new int[] {2, 8}) {
      assertSameFill(b, 4, 1 << 12, 7);
      assertSameFill(b, 8, 1 << 12, 7);
    }
  }

  @Test
  void narrowFingerprintsFillLessThanWideOnes() {
    double[] load = new double[4];
    for (int f = 2; f <= 3; f++) {
      MinimalCuckooTable t = new MinimalCuckooTable(4, f, 1 << 16, 0, CuckooAdapter.MAX_KICKS);
      t.fillToFailure(new SplittableRandom(f));
      load[f] = t.loadFactor();
      assertTrue(load[f] > 0 && load[f] < 1, "f = " + f + ": " + load[f]);
    }
    assertTrue(load[2] < load[3], load[2] + " >= " + load[3]);
  }

  private static void assertSameFill(int b, int f, long buckets, long seed) {
    String what = "b = " + b + ", f = " + f + ", " + buckets + " buckets, seed " + seed;
    CuckooFilter core = CuckooAdapter.paperFaithful(b, f, false, buckets, seed);
    MinimalCuckooTable minimal = new MinimalCuckooTable(b, f, buckets, seed, CuckooAdapter.MAX_KICKS);
    SplittableRandom keys = new SplittableRandom(seed * 31 + f);
    long inserts = 0;
    while (true) {
      long key = keys.nextLong();
      boolean stored = core.add(key);
      assertEquals(stored, minimal.add(key), what + ", insert " + inserts);
      inserts++;
      if (!stored) {
        break;
      }
    }
    assertEquals(core.size(), minimal.size(), what);
    assertEquals(core.loadFactor(), minimal.loadFactor(), what);
    assertTrue(core.loadFactor() > 0.5, what + ": " + core.loadFactor());
    LongStream.Builder coreCodes = LongStream.builder();
    core.forEachEntryCode(coreCodes);
    LongStream.Builder minimalCodes = LongStream.builder();
    minimal.forEachEntryCode(minimalCodes);
    assertArrayEquals(coreCodes.build().toArray(), minimalCodes.build().toArray(), what);
    // A failed insert changed nothing in either: the next key is treated alike too.
    assertFalse(core.stashSize() != 0, what);
    long next = keys.nextLong();
    assertEquals(core.add(next), minimal.add(next), what + ", after the failure");
  }
}
