package dev.cuckoofilter.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoofilter.core.sizing.Sizing;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SizingTest {
  /** create(n, fpp) holds n items and delivers fpp, for sizes that are not powers of two. */
  @ParameterizedTest(name = "fpp={0}")
  @CsvSource({"0.2", "0.05", "0.01", "0.002", "0.0001", "0.000001"})
  void createdFiltersHoldTheirItemsAtTheirRate(double fpp) {
    SplittableRandom r = new SplittableRandom(Double.hashCode(fpp));
    long[] sizes = {1, 2, 3, 5, 17, 100, 333, 1000, 4097, 65_535, 65_537, 100_003, 1 << 20, (1 << 20) + 1};
    for (long n : sizes) {
      for (int trial = 0; trial < (n < 5000 ? 20 : 1); trial++) {
        CuckooFilter filter = CuckooFilter.create(n, fpp);
        for (long i = 0; i < n; i++) {
          long item = r.nextLong();
          if (!filter.add(item)) {
            throw new AssertionError("insert " + (i + 1) + " of " + n + " failed: " + filter);
          }
        }
        assertTrue(filter.expectedFpp() <= fpp, filter::toString);
        FilterParameters p = filter.parameters();
        double designLoad = Sizing.designLoad(p.bucketSize(), p.fingerprintBits(), p.bucketCount());
        double ideal = (double) p.bucketBits() / p.bucketSize() / designLoad;
        if (n >= 1000) {
          // No power-of-two rounding: bits per item at capacity within 2% of f / alpha for every n.
          assertTrue(filter.bitsPerItem() <= ideal * 1.02, () -> filter + " vs ideal " + ideal);
        }
      }
    }
  }

  @Test
  void spaceDoesNotJumpAtPowersOfTwo() {
    double below = CuckooFilter.create((1 << 20) - 1, 0.01).bitSize() / (double) ((1 << 20) - 1);
    double above = CuckooFilter.create((1 << 20) + 1, 0.01).bitSize() / (double) ((1 << 20) + 1);
    assertTrue(Math.abs(above - below) / below < 0.001, below + " vs " + above);
  }

  @Test
  void bucketSizeFollowsTheSpaceOptimum() {
    // Fig. 3: larger false-positive rates favour b = 2, small ones b = 4.
    assertEquals(2, CuckooFilter.create(1_000_000, 0.05).parameters().bucketSize());
    assertEquals(4, CuckooFilter.create(1_000_000, 0.002).parameters().bucketSize());
    assertEquals(4, CuckooFilter.create(1_000_000, 0.0001).parameters().bucketSize());
    for (double fpp : new double[] {0.3, 0.1, 0.03, 0.01, 0.003, 0.001, 1e-4, 1e-5, 1e-6, 1e-8}) {
      Sizing.Choice chosen = Sizing.choose(10_000_000, fpp, false);
      for (int b : new int[] {2, 4, 8}) {
        Sizing.Choice other = Sizing.forBucketSize(10_000_000, b, fpp, false);
        assertTrue(chosen.bitsPerItem() <= other.bitsPerItem() * 1.001, () -> "fpp " + fpp + ": " + chosen + " vs " + other);
      }
    }
  }

  @Test
  void fingerprintWidthFollowsEquationSix() {
    // f >= log2(2b / fpp) at full buckets; the exact rate at the design load can save a bit.
    for (double fpp : new double[] {0.1, 0.01, 0.001, 1e-4, 1e-6}) {
      for (int b : new int[] {2, 4, 8}) {
        int f = Sizing.fingerprintBits(1_000_000, b, fpp);
        double eq6 = Math.log(2.0 * b / fpp) / Math.log(2);
        assertTrue(f >= Math.floor(eq6) && f <= Math.ceil(eq6) + 1, "b=" + b + " fpp=" + fpp + ": f=" + f + " vs " + eq6);
      }
    }
  }

  @Test
  void shortFingerprintsAreAvoidedInLargeTables() {
    assertTrue(Sizing.minFingerprintBits(2, 1L << 23) >= 7);
    assertTrue(Sizing.minFingerprintBits(4, 1L << 32) >= 5);
    CuckooFilter coarse = CuckooFilter.create(100_000_000, 0.25);
    assertTrue(coarse.parameters().fingerprintBits() >= Sizing.minFingerprintBits(coarse.parameters().bucketSize(),
        coarse.parameters().bucketCount()));
  }

  @Test
  void badArgumentsAreNamed() {
    assertTrue(assertThrows(IllegalArgumentException.class, () -> CuckooFilter.create(0, 0.01)).getMessage()
        .contains("expectedItems"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> CuckooFilter.create(10, 1.5)).getMessage()
        .contains("fpp"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> CuckooFilter.create(10, Double.NaN)).getMessage()
        .contains("fpp"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> CuckooFilter.builder().bucketSize(3)).getMessage()
        .contains("bucketSize"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> CuckooFilter.builder().fingerprintBits(33))
        .getMessage().contains("fingerprintBits"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> CuckooFilter.builder().bucketCount(7)).getMessage()
        .contains("bucketCount"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> CuckooFilter.builder().maxKicks(-1)).getMessage()
        .contains("maxKicks"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> CuckooFilter.builder().stashCapacity(65))
        .getMessage().contains("stashCapacity"));
    assertTrue(assertThrows(IllegalArgumentException.class,
        () -> CuckooFilter.builder().semiSorted(true).bucketSize(8).expectedItems(10).build()).getMessage()
        .contains("semiSorted"));
    assertTrue(assertThrows(IllegalStateException.class, () -> CuckooFilter.builder().build()).getMessage()
        .contains("expectedItems"));
    assertTrue(assertThrows(RuntimeException.class, () -> CuckooFilter.create(10, 1e-12)).getMessage()
        .contains("fpp"));
  }

  @Test
  void statisticsAreConsistent() {
    CuckooFilter filter = CuckooFilter.builder().bucketSize(4).fingerprintBits(12).bucketCount(1000).build();
    assertEquals(4000, filter.capacity());
    assertEquals(48_000, filter.bitSize());
    assertEquals(Double.POSITIVE_INFINITY, filter.bitsPerItem());
    assertEquals(0.0, filter.expectedFpp());
    for (long i = 0; i < 3000; i++) {
      filter.add(i);
    }
    assertEquals(3000, filter.size());
    assertEquals(0.75, filter.loadFactor(), 1e-12);
    assertEquals(16.0, filter.bitsPerItem(), 1e-12);
    // 3000 items, each matching a query with probability 2 / (1000 * 4095); close to the large-table limit.
    assertEquals(1 - Math.pow(1 - 2.0 / (1000 * 4095), 3000), filter.expectedFpp(), 1e-12);
    assertEquals(1 - Math.exp(-8 * 0.75 / 4095), filter.expectedFpp(), 1e-9);
    assertEquals(0, filter.failedInserts());
  }
}
