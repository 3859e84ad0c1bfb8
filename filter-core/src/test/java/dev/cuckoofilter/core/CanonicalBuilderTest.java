package dev.cuckoofilter.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoofilter.core.hash.CuckooHash;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CanonicalBuilderTest {
  /**
   * The buffer of {@link CanonicalBuilder#addHash} grows by half: past 1,431,655,765 codes that size
   * wrapped to a negative int (a NegativeArraySizeException from deep inside the build). It must grow up to
   * the largest array and then fail naming the limit and the call that has none. (Checked on the growth
   * rule: the arrays themselves would need 11 GB.)
   */
  @Test
  void theHashBufferGrowsToTheLargestArrayAndThenFailsClearly() {
    assertEquals(16, CanonicalBuilder.grownCapacity(0));
    assertEquals(150, CanonicalBuilder.grownCapacity(100));
    for (int size : new int[] {1_431_655_765, 1_431_655_766, 1_500_000_000, Integer.MAX_VALUE - 9}) {
      int grown = CanonicalBuilder.grownCapacity(size);
      assertTrue(grown > size && grown <= Integer.MAX_VALUE - 8, size + " grows to " + grown);
    }
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> CanonicalBuilder.grownCapacity(Integer.MAX_VALUE - 8));
    assertTrue(e.getMessage().contains("addHashesInPasses") && e.getMessage().contains("at most"), e.getMessage());
  }

  /** The same for the codes of one range of buckets in {@link CanonicalBuilder#addHashesInPasses}. */
  @Test
  void theBufferOfAPassGrowsToTheLargestArrayAndThenFailsClearly() {
    for (int size : new int[] {0, 100, 1_431_655_750, 1_431_655_766, 1_500_000_000, Integer.MAX_VALUE - 9}) {
      int grown = CanonicalBuilder.grownRangeCapacity(size);
      assertTrue(grown > size && grown <= Integer.MAX_VALUE - 8, size + " grows to " + grown);
    }
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> CanonicalBuilder.grownRangeCapacity(Integer.MAX_VALUE - 8));
    assertTrue(e.getMessage().contains("codesPerPass"), e.getMessage());
  }

  @ParameterizedTest(name = "semiSorted={0} b={1} f={2}")
  @CsvSource({"false, 4, 12", "false, 2, 10", "false, 8, 16", "true, 4, 13", "false, 4, 32"})
  void theSameItemsGiveTheSameBytesInAnyOrder(boolean semiSorted, int b, int f) {
    FilterParameters p = CuckooFilter.builder().semiSorted(semiSorted).bucketSize(b).fingerprintBits(f)
        .expectedItems(20_000).seed(5).build().parameters();
    SplittableRandom r = new SplittableRandom(f);
    long[] items = new long[20_000];
    for (int i = 0; i < items.length; i++) {
      items[i] = r.nextLong();
    }
    // Built by item order: bytes depend on the order.
    CuckooFilter forward = CuckooFilter.builder().semiSorted(semiSorted).bucketSize(b).fingerprintBits(f)
        .expectedItems(20_000).seed(5).build();
    CuckooFilter backward = CuckooFilter.builder().semiSorted(semiSorted).bucketSize(b).fingerprintBits(f)
        .expectedItems(20_000).seed(5).build();
    for (int i = 0; i < items.length; i++) {
      assertTrue(forward.add(items[i]));
      assertTrue(backward.add(items[items.length - 1 - i]));
    }
    assertNotEquals(forward, backward, "insertion order changes the layout");
    // Canonical forms agree with each other and with a build from sorted hashes and sorted codes.
    byte[] canonical = CanonicalBuilder.canonical(forward).toByteArray();
    assertArrayEquals(canonical, CanonicalBuilder.canonical(backward).toByteArray());

    CanonicalBuilder byHash = new CanonicalBuilder(p, false);
    for (long item : items) { // any order
      byHash.addHash(CuckooHash.hashLong(item, 5));
    }
    assertArrayEquals(canonical, byHash.build().toByteArray());

    long[] hashes = Arrays.stream(items).map(x -> CuckooHash.hashLong(x, 5)).toArray();
    CanonicalBuilder byHashArray = new CanonicalBuilder(p, false);
    byHashArray.addHashes(hashes.clone(), hashes.length); // it takes the array over
    assertArrayEquals(canonical, byHashArray.build().toByteArray());

    for (int codesPerPass : new int[] {1, 997, 5_000, 20_000, Integer.MAX_VALUE}) {
      CanonicalBuilder inPasses = new CanonicalBuilder(p, false);
      int[] replays = {0};
      inPasses.addHashesInPasses(consumer -> {
        replays[0]++;
        for (long h : hashes) {
          consumer.accept(h);
        }
      }, hashes.length, codesPerPass);
      assertArrayEquals(canonical, inPasses.build().toByteArray(), "codesPerPass " + codesPerPass);
      assertEquals(Math.min(p.bucketCount(), ((long) hashes.length + codesPerPass - 1) / codesPerPass), replays[0]);
    }

    long[] codes = Arrays.stream(items).map(x -> EntryCodes.ofHash(p, CuckooHash.hashLong(x, 5)) ^ Long.MIN_VALUE)
        .sorted().map(x -> x ^ Long.MIN_VALUE).toArray();
    CanonicalBuilder byCode = new CanonicalBuilder(p, false);
    for (long c : codes) {
      byCode.addCode(c);
    }
    CuckooFilter built = byCode.build();
    assertArrayEquals(canonical, built.toByteArray());
    for (long item : items) {
      assertTrue(built.mightContain(item));
      assertEquals(forward.count(item), built.count(item));
    }
  }

  @ParameterizedTest(name = "distinct={0}")
  @CsvSource({"true", "false"})
  void distinctBuildsStoreEqualEntriesOnce(boolean distinct) {
    FilterParameters p = CuckooFilter.builder().expectedItems(100).build().parameters();
    CanonicalBuilder builder = new CanonicalBuilder(p, distinct);
    long code = EntryCodes.ofHash(p, CuckooHash.hashLong(7, p.seed()));
    builder.addCode(code);
    builder.addCode(code);
    CuckooFilter f = builder.build();
    assertEquals(distinct ? 1 : 2, f.count(7));
  }

  @Test
  void passesOverRepeatedHashesKeepEachEntryOnceInADistinctBuild() {
    FilterParameters p = CuckooFilter.builder().expectedItems(3_000).fpp(0.01).build().parameters();
    long[] hashes = new long[3_000];
    for (int i = 0; i < hashes.length; i++) {
      hashes[i] = CuckooHash.hashLong(i % 1_000, p.seed()); // every key three times
    }
    CanonicalBuilder once = new CanonicalBuilder(p, true);
    for (int i = 0; i < 1_000; i++) {
      once.addHash(CuckooHash.hashLong(i, p.seed()));
    }
    CanonicalBuilder inPasses = new CanonicalBuilder(p, true);
    inPasses.addHashesInPasses(consumer -> Arrays.stream(hashes).forEach(consumer), hashes.length, 100);
    CuckooFilter built = inPasses.build();
    assertArrayEquals(once.build().toByteArray(), built.toByteArray());
    assertEquals(1, built.count(999));
    // An empty source gives the empty filter.
    CanonicalBuilder empty = new CanonicalBuilder(p, true);
    empty.addHashesInPasses(consumer -> { }, 0, 100);
    assertArrayEquals(CuckooFilter.emptyWith(p).toByteArray(), empty.build().toByteArray());
  }

  @ParameterizedTest(name = "case {0}")
  @CsvSource({"0", "1", "2"})
  void misuseIsRejected(int which) {
    FilterParameters p = CuckooFilter.builder().bucketCount(4).fingerprintBits(8).stashCapacity(0).build().parameters();
    CanonicalBuilder builder = new CanonicalBuilder(p, false);
    if (which == 0) {
      builder.addCode(100);
      assertThrows(IllegalArgumentException.class, () -> builder.addCode(99));
    } else if (which == 2) {
      builder.addHash(1);
      assertThrows(IllegalStateException.class, () -> builder.addHashes(new long[] {2}, 1));
    } else {
      FilterFullException e = assertThrows(FilterFullException.class, () -> {
        for (long i = 0; i < 1000; i++) {
          builder.addCode(EntryCodes.ofHash(p, CuckooHash.hashLong(0, 0)));
        }
      });
      assertTrue(e.getMessage().contains("full"), e.getMessage());
    }
  }

  /**
   * A build that failed for want of room leaves a filter holding only part of the items: the builder used to
   * hand that filter out on a second build() (the buffered codes were gone, so nothing failed again), silently
   * dropping the rest. After a failure the builder refuses to build or take more.
   */
  @ParameterizedTest(name = "by {0}")
  @CsvSource({"hashes", "codes", "passes"})
  void aBuilderThatFailedNeverHandsOutItsPartialFilter(String by) {
    FilterParameters p = CuckooFilter.builder().bucketCount(4).fingerprintBits(8).stashCapacity(0).build().parameters();
    long[] hashes = new long[200]; // 200 distinct items for 16 slots
    for (int i = 0; i < hashes.length; i++) {
      hashes[i] = CuckooHash.hashLong(i, 0);
    }
    CanonicalBuilder builder = new CanonicalBuilder(p, true);
    if (by.equals("hashes")) {
      builder.addHashes(hashes.clone(), hashes.length);
      assertThrows(FilterFullException.class, builder::build);
    } else if (by.equals("codes")) {
      long[] codes = Arrays.stream(hashes).map(h -> EntryCodes.ofHash(p, h)).toArray();
      UnsignedLongs.sort(codes, 0, codes.length);
      assertThrows(FilterFullException.class, () -> {
        for (long code : codes) {
          builder.addCode(code);
        }
      });
    } else {
      assertThrows(FilterFullException.class, () -> builder.addHashesInPasses(sink -> {
        for (long h : hashes) {
          sink.accept(h);
        }
      }, hashes.length, 50));
    }
    IllegalStateException e = assertThrows(IllegalStateException.class, builder::build);
    assertTrue(e.getMessage().contains("full"), e.getMessage());
    assertThrows(IllegalStateException.class, () -> builder.addHash(1));
  }

  @Test
  void addingByCodeAfterHashesOrAnythingAfterBuildIsRejected() {
    FilterParameters p = CuckooFilter.builder().bucketCount(64).fingerprintBits(12).build().parameters();
    long small = EntryCodes.ofHash(p, CuckooHash.hashLong(1, 0));
    long large = EntryCodes.ofHash(p, CuckooHash.hashLong(2, 0));
    if (Long.compareUnsigned(small, large) > 0) {
      long t = small;
      small = large;
      large = t;
    }
    // Mixing used to be caught only by chance, at build(), when a buffered code sorted below it.
    CanonicalBuilder mixed = new CanonicalBuilder(p, false);
    mixed.addHash(CuckooHash.hashLong(1, 0));
    long code = large;
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> mixed.addCode(code));
    assertTrue(e.getMessage().contains("addCode"), e.getMessage());

    CanonicalBuilder builder = new CanonicalBuilder(p, false);
    builder.addCode(small);
    CuckooFilter built = builder.build();
    // After build() the filter belongs to the caller: adding more used to change it (or throw an NPE).
    assertThrows(IllegalStateException.class, () -> builder.addCode(code));
    assertThrows(IllegalStateException.class, () -> builder.addHash(3));
    assertThrows(IllegalStateException.class, () -> builder.addHashes(new long[] {3}, 1));
    assertEquals(1, built.size());
    CanonicalBuilder byHash = new CanonicalBuilder(p, false);
    byHash.addHash(5);
    byHash.build();
    assertThrows(IllegalStateException.class, () -> byHash.addHash(6));
  }
}
