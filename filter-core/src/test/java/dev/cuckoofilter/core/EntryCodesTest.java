package dev.cuckoofilter.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoofilter.core.hash.Addressing;
import dev.cuckoofilter.core.hash.CuckooHash;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Entry codes address exactly what a filter stores for an item, whatever its current bucket. */
class EntryCodesTest {
  @ParameterizedTest(name = "semiSorted={0} b={1} f={2}")
  @CsvSource({"false, 4, 12", "false, 2, 8", "true, 4, 13", "false, 8, 32"})
  void entryCodeOperationsMatchItemOperations(boolean semiSorted, int b, int f) {
    CuckooFilter filter = CuckooFilter.builder().semiSorted(semiSorted).bucketSize(b).fingerprintBits(f)
        .expectedItems(5000).seed(3).build();
    FilterParameters p = filter.parameters();
    SplittableRandom r = new SplittableRandom(f);
    Set<Long> codes = new HashSet<>();
    for (int i = 0; i < 5000; i++) {
      long item = r.nextLong();
      long code = EntryCodes.ofHash(p, CuckooHash.hashLong(item, 3));
      if (i % 2 == 0) {
        assertTrue(filter.add(item));
      } else {
        assertTrue(filter.addEntryCode(code));
      }
      assertTrue(filter.mightContain(item));
      assertTrue(filter.containsEntryCode(code));
      codes.add(code);
    }
    Set<Long> enumerated = new HashSet<>();
    filter.forEachEntryCode(enumerated::add);
    assertEquals(codes, enumerated, "forEachEntryCode lists what was added");
    for (long code : codes) {
      while (filter.containsEntryCode(code)) {
        assertTrue(filter.removeEntryCode(code));
      }
      assertFalse(filter.removeEntryCode(code), "removing an absent code changes nothing");
    }
    assertEquals(0, filter.size());
  }

  @ParameterizedTest(name = "code {0}")
  @CsvSource({"-1", "9223372036854775807"})
  void codesOfOtherGeometriesAreRejected(long code) {
    CuckooFilter filter = CuckooFilter.create(100, 0.01);
    assertThrows(IllegalArgumentException.class, () -> filter.addEntryCode(code));
    assertThrows(IllegalArgumentException.class, () -> filter.containsEntryCode(code));
  }

  /**
   * A code whose low f bits are all ones would carry the fingerprint 2^f, which does not fit in f bits:
   * no item has it. Accepting it stored a different fingerprint than the one later looked up (packed),
   * or an invalid semi-sorted code (an exception mid-insert, or a filter its own reader rejects).
   */
  @ParameterizedTest(name = "semiSorted={0} b={1} f={2}")
  @CsvSource({"false, 4, 8", "true, 4, 8", "false, 2, 12", "false, 8, 4", "true, 4, 4", "false, 4, 32", "true, 4, 32"})
  void codesWithAnOutOfRangeFingerprintAreRejected(boolean semiSorted, int b, int f) throws Exception {
    long buckets = 100;
    FilterParameters p = CuckooFilter.builder().semiSorted(semiSorted).bucketSize(b).fingerprintBits(f)
        .bucketCount(buckets).build().parameters();
    long tooLarge = 1L << f; // the fingerprint such a code would carry
    long bucket = 0;
    while (Addressing.alternate(bucket, tooLarge, buckets) < bucket) {
      bucket++;
    }
    long code = (bucket << f) | (tooLarge - 1);
    CuckooFilter filter = CuckooFilter.builder().semiSorted(semiSorted).bucketSize(b).fingerprintBits(f)
        .bucketCount(buckets).build();
    filter.add(1L);
    filter.add(2L);
    byte[] before = filter.toByteArray();
    assertThrows(IllegalArgumentException.class, () -> filter.addEntryCode(code));
    assertThrows(IllegalArgumentException.class, () -> filter.containsEntryCode(code));
    assertThrows(IllegalArgumentException.class, () -> filter.removeEntryCode(code));
    assertArrayEquals(before, filter.toByteArray(), "a rejected code changes nothing");
    CanonicalBuilder builder = new CanonicalBuilder(p, false);
    assertThrows(IllegalArgumentException.class, () -> builder.addCode(code));
    // The largest valid fingerprint of the same bucket still works.
    long valid = (bucket << f) | (tooLarge - 2);
    if (Addressing.alternate(bucket, tooLarge - 1, buckets) > bucket) {
      builder.addCode(valid);
      CuckooFilter built = builder.build();
      assertEquals(1, built.size());
      assertTrue(built.containsEntryCode(valid));
      assertEquals(built, CuckooFilter.fromByteArray(built.toByteArray()));
    }
  }
}
