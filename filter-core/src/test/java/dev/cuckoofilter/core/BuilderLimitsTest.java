package dev.cuckoofilter.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoofilter.core.sizing.Sizing;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The builder at and beyond the limits of its parameters: valid extremes are sized, invalid or
 * conflicting settings give an IllegalArgumentException naming the setting and what it accepts.
 * Only {@code parameters()} is called for large sizes, so nothing big is allocated.
 */
class BuilderLimitsTest {
  @Test
  void largeFiltersUseABucketSizeThatHoldsTheirItems() {
    // More than 2^32 buckets of 2 hold, fewer than 2^32 buckets of 4: b = 2 is left out, not fatal.
    FilterParameters p = CuckooFilter.builder().expectedItems(10_000_000_000L).fpp(0.05).parameters();
    assertEquals(4, p.bucketSize());
    assertTrue(p.bucketCount() <= Sizing.MAX_BUCKETS);
    // More than 2^32 buckets of 4 hold: b = 8.
    p = CuckooFilter.builder().expectedItems(20_000_000_000L).fpp(0.01).parameters();
    assertEquals(8, p.bucketSize());
    assertTrue(p.bucketCount() <= Sizing.MAX_BUCKETS);
    // The limits quoted in docs/SIZING.md.
    assertEquals(7_215_545_057L, Sizing.maxItems(2, 32));
    assertEquals(16_320_875_724L, Sizing.maxItems(4, 32));
    assertEquals(33_672_543_600L, Sizing.maxItems(8, 32));
    // The largest sizes of each bucket size work, one more item does not.
    for (int b : new int[] {2, 4, 8}) {
      long max = Sizing.maxItems(b, 32);
      FilterParameters atMax = CuckooFilter.builder().bucketSize(b).expectedItems(max).fpp(0.001).parameters();
      assertTrue(atMax.bucketCount() <= Sizing.MAX_BUCKETS, atMax::toString);
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> CuckooFilter.builder().bucketSize(b).expectedItems(max + 1).fpp(0.001).parameters());
      assertTrue(e.getMessage().contains("expectedItems") && e.getMessage().contains("at most " + max), e.getMessage());
    }
    // Even 4-bit fingerprints (a large fpp), whose design load is lower, at the limit of b = 4.
    FilterParameters coarse = CuckooFilter.builder().bucketSize(4).expectedItems(Sizing.maxItems(4, 32)).fpp(0.45)
        .parameters();
    assertTrue(coarse.bucketCount() <= Sizing.MAX_BUCKETS, coarse::toString);
    long max = Sizing.maxItems(8, 32);
    assertEquals(8, CuckooFilter.builder().expectedItems(max).parameters().bucketSize());
    for (long tooMany : new long[] {max + 1, Long.MAX_VALUE}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CuckooFilter.create(tooMany, 0.01));
      assertTrue(e.getMessage().contains("expectedItems must be at most " + max), e.getMessage());
    }
    assertTrue(assertThrows(IllegalArgumentException.class,
        () -> CuckooFilter.builder().semiSorted(true).expectedItems(max).parameters()).getMessage()
        .contains("at most " + Sizing.maxItems(4, 32)));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({"auto", "bucketSize", "semiSorted", "bucketCount"})
  void anUnreachableFppNamesTheSmallestReachableOne(String how) {
    CuckooFilter.Builder builder = CuckooFilter.builder().fpp(1e-12);
    switch (how) {
      case "auto":
        builder.expectedItems(1000);
        break;
      case "bucketSize":
        builder.expectedItems(1000).bucketSize(4);
        break;
      case "semiSorted":
        builder.expectedItems(1000).semiSorted(true);
        break;
      default:
        builder.bucketCount(1000);
    }
    // The same mistake gives the same exception type whichever other settings are present.
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, builder::parameters);
    assertTrue(e.getMessage().contains("fpp") && e.getMessage().contains("at least"), e.getMessage());
    double smallest = Double.parseDouble(e.getMessage().replaceAll(".*at least ([0-9.E-]+).*", "$1"));
    assertTrue(smallest > 1e-12 && smallest < 3e-9, e.getMessage());
    // The smallest rate named is accepted.
    CuckooFilter.Builder ok = CuckooFilter.builder().fpp(smallest);
    switch (how) {
      case "auto":
        ok.expectedItems(1000);
        break;
      case "bucketSize":
        ok.expectedItems(1000).bucketSize(4);
        break;
      case "semiSorted":
        ok.expectedItems(1000).semiSorted(true);
        break;
      default:
        ok.bucketCount(1000);
    }
    assertEquals(32, ok.parameters().fingerprintBits());
  }

  @Test
  void conflictingSettingsAreRefused() {
    IllegalArgumentException semi = assertThrows(IllegalArgumentException.class,
        () -> CuckooFilter.builder().semiSorted(true).bucketSize(2).expectedItems(100).build());
    assertTrue(semi.getMessage().contains("semiSorted requires bucketSize 4"), semi.getMessage());
    // An explicit fingerprint width that cannot deliver the explicit rate: the rate would be recorded
    // in the header as the filter's target although the filter is 10^5 times worse.
    IllegalArgumentException width = assertThrows(IllegalArgumentException.class,
        () -> CuckooFilter.builder().expectedItems(1000).fingerprintBits(4).fpp(1e-6).parameters());
    assertTrue(width.getMessage().contains("fpp") && width.getMessage().contains("fingerprintBits 4")
        && width.getMessage().contains("at least"), width.getMessage());
    // Consistent explicit settings are kept as given.
    FilterParameters p = CuckooFilter.builder().expectedItems(1000).fingerprintBits(13).fpp(0.001).parameters();
    assertEquals(13, p.fingerprintBits());
    assertEquals(0.001, p.targetFpp());
    // More items than an explicit table can ever hold.
    IllegalArgumentException items = assertThrows(IllegalArgumentException.class,
        () -> CuckooFilter.builder().bucketCount(2).expectedItems(1_000_000).parameters());
    assertTrue(items.getMessage().contains("expectedItems") && items.getMessage().contains("at most"),
        items.getMessage());
    assertEquals(12, CuckooFilter.builder().bucketCount(2).expectedItems(12).parameters().expectedItems());
  }

  /**
   * More {@code expectedItems} than an explicit table and its stash can hold are named as such, whatever the rate:
   * the fingerprint width was derived first, from the rate those items would have in that table, and when even 32
   * bits could not meet it the error blamed the rate: "fpp 0.01 is below what 32-bit fingerprints can deliver with
   * bucketSize 4: fpp must be at least 0.0230" for 100 million items in 2 buckets, and "at least 1.0", a rate no
   * filter can be given, for Long.MAX_VALUE items. Raising the rate as told only led to the real problem.
   */
  @Test
  void tooManyExpectedItemsForAnExplicitTableAreNamedWhateverTheRate() {
    for (long items : new long[] {100_000_000L, Long.MAX_VALUE}) {
      for (CuckooFilter.Builder builder : new CuckooFilter.Builder[] {
          CuckooFilter.builder().bucketCount(2).expectedItems(items),
          CuckooFilter.builder().bucketCount(2).expectedItems(items).fpp(0.001),
          CuckooFilter.builder().bucketCount(2).expectedItems(items).fingerprintBits(32).fpp(0.01)}) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, builder::parameters);
        assertTrue(e.getMessage().contains("expectedItems " + items + " conflicts with bucketCount 2")
            && e.getMessage().contains("at most the 8 entries and 4 stash slots"), e.getMessage());
      }
    }
  }

  /**
   * {@code expectedItems} are the items the filter must hold at its rate, also with an explicit table: the
   * fingerprint width was chosen for the table's design load alone, so 16 items in 10 buckets of 2 (a load of 0.8,
   * above the design load 0.7 of so small a table) were given 6-bit fingerprints for a target of 0.04354 and
   * reported 0.0496 with the 16 items.
   */
  @Test
  void anExplicitTableMeetsTheTargetRateWithTheExpectedItems() {
    double fpp = Sizing.designFalsePositiveRate(2, 6, 10);
    for (int expected = 1; expected <= 24; expected++) {
      CuckooFilter filter = CuckooFilter.builder().bucketCount(10).bucketSize(2).expectedItems(expected).fpp(fpp)
          .build();
      SplittableRandom r = new SplittableRandom(expected);
      while (filter.size() < expected) {
        filter.add(r.nextLong());
      }
      assertTrue(filter.expectedFpp() <= fpp, "holding its " + expected + " expected items " + filter
          + " reports " + filter.expectedFpp() + " for a target of " + fpp);
    }
    // Unset, the rate recorded is the one the table has with the expected items.
    CuckooFilter unset = CuckooFilter.builder().bucketCount(10).bucketSize(2).fingerprintBits(6).expectedItems(16)
        .build();
    assertEquals(Sizing.falsePositiveRate(6, 10L, 16L), unset.parameters().targetFpp());
    // An explicit width that does not meet the rate with the expected items is refused.
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CuckooFilter.builder()
        .bucketCount(10).bucketSize(2).fingerprintBits(6).expectedItems(16).fpp(fpp).parameters());
    assertTrue(e.getMessage().contains("fingerprintBits 6"), e.getMessage());
  }

  @Test
  void validExtremesBuildWorkingFilters() {
    CuckooFilter[] filters = {
        CuckooFilter.create(1, 0.999), CuckooFilter.create(1, 1e-9), CuckooFilter.create(1, Math.nextUp(0.0) + 0.5),
        CuckooFilter.builder().expectedItems(1).fingerprintBits(4).build(),
        CuckooFilter.builder().expectedItems(1).fingerprintBits(32).bucketSize(8).build(),
        CuckooFilter.builder().expectedItems(1).semiSorted(true).fingerprintBits(4).build(),
        CuckooFilter.builder().expectedItems(1).semiSorted(true).fingerprintBits(32).build(),
        CuckooFilter.builder().bucketCount(2).maxKicks(0).stashCapacity(0).build(),
        CuckooFilter.builder().bucketCount(2).maxKicks(1 << 20).stashCapacity(64).build()};
    for (CuckooFilter filter : filters) {
      assertTrue(filter.add(42L), filter::toString);
      assertTrue(filter.mightContain(42L), filter::toString);
      assertEquals(1, filter.count(42L));
      assertTrue(filter.remove(42L));
      assertEquals(0, filter.size());
    }
  }

  @Test
  void aTooSmallSegmentLimitNamesTheSmallestThatWorks() {
    // 64 bytes is the documented floor, but 8 buckets of 8 x 32 bits need 256 bytes and the padding.
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CuckooFilter.builder()
        .bucketCount(100).bucketSize(8).fingerprintBits(32).maxSegmentBytes(64).build());
    assertTrue(e.getMessage().contains("maxSegmentBytes") && e.getMessage().contains("at least 264"), e.getMessage());
    CuckooFilter filter = CuckooFilter.builder().bucketCount(100).bucketSize(8).fingerprintBits(32)
        .maxSegmentBytes(264).build();
    assertTrue(filter.add(1L) && filter.mightContain(1L));
  }
}
