package dev.cuckoofilter.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The same parameters and operations give byte-identical filters: on any JVM, in any run. */
class DeterminismTest {
  static CuckooFilter build(boolean semiSorted) {
    CuckooFilter filter = CuckooFilter.builder().semiSorted(semiSorted).expectedItems(10_000).fpp(0.001).seed(42)
        .build();
    SplittableRandom r = new SplittableRandom(123);
    for (int i = 0; i < 12_000; i++) { // past capacity: kicks, stash, failures
      filter.add(r.nextLong());
      if (i % 7 == 0) {
        filter.add("s" + i);
      }
      if (i % 11 == 0) {
        filter.remove("s" + (i - 77));
      }
    }
    return filter;
  }

  @Test
  void sameOperationsGiveIdenticalBytes() {
    for (boolean semi : new boolean[] {false, true}) {
      byte[] a = build(semi).toByteArray();
      byte[] b = build(semi).toByteArray();
      assertArrayEquals(a, b);
    }
  }

  /**
   * Pinned digests of the filters above: if one changes, the hash contract, the kick choices or the
   * format changed, and filters written by earlier versions would no longer be reproduced.
   */
  @Test
  void outputIsPinnedAcrossVersionsAndMachines() throws Exception {
    assertEquals(PACKED_SHA256, sha256(build(false).toByteArray()));
    assertEquals(SEMI_SORTED_SHA256, sha256(build(true).toByteArray()));
  }

  /**
   * Filters large enough to look their alternate offsets up in a table ({@code Addressing.offsets}) give
   * the bytes pinned here, computed before that table existed: the lookup changes nothing. (Since 2026-11-28
   * the header's design false-positive rate, recorded when no fpp is given, is the exact rate of
   * {@code Sizing.falsePositiveRate} instead of Eq. (5)'s overestimate: bytes 56-63 and the header CRC changed,
   * nothing else. Since 2026-11-29 that rate is the exact rate at the design load,
   * {@code Sizing.designFalsePositiveRate}, instead of its large-table limit: bytes 56-63 and the header CRC
   * changed again, nothing else.)
   */
  @Test
  void filtersWithAnOffsetTableHavePinnedBytes() throws Exception {
    assertEquals("29473f735e35c3c2ae49442cf523699ae72310ff34bf25460d1e5674508a51b7", sha256(fillPastCapacity(false)));
    assertEquals("4258789c6522c128d754b9d17d896204fa82d76c8db15601e6dffde01c2c7ec7", sha256(fillPastCapacity(true)));
  }

  private static byte[] fillPastCapacity(boolean semiSorted) {
    CuckooFilter filter = CuckooFilter.builder().semiSorted(semiSorted).bucketSize(4).fingerprintBits(8)
        .expectedItems(100_000).seed(42).build();
    SplittableRandom r = new SplittableRandom(321);
    for (int i = 0; i < 110_000; i++) { // kicks, failed inserts rolled back, deletes, a stash
      filter.add(r.nextLong());
      if (i % 5 == 0) {
        filter.remove(r.nextLong());
      }
      if (i % 3 == 0) {
        filter.add("k" + i);
      }
      if (i % 13 == 0) {
        filter.remove("k" + (i - 39));
      }
    }
    return filter.toByteArray();
  }

  static final String PACKED_SHA256 = "f35e2b1352272afcf379595556be2e5221f658bf9cf4f0832e08c196838ed4f1";
  static final String SEMI_SORTED_SHA256 = "397d4a32cc54956c2c5f1c6535ec6ee2827bfc30ecc30572257dad6a51ac1fc9";

  static String sha256(byte[] bytes) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
  }

  @Test
  void filtersReachFullLoadWithFailures() {
    CuckooFilter filter = build(false);
    assertTrue(filter.failedInserts() > 0 && filter.stashSize() > 0, filter::toString);
  }
}
