package dev.cuckoofilter.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** A failed insert loses nothing and changes nothing; the filter keeps working afterwards. */
class FailedInsertTest {
  @ParameterizedTest(name = "semiSorted={0} b={1} f={2} stash={3}")
  @CsvSource({"false, 2, 8, 0", "false, 4, 12, 0", "false, 8, 16, 0", "true, 4, 13, 0", "false, 4, 12, 4",
      "true, 4, 9, 2", "false, 4, 32, 0", "true, 4, 32, 1", "false, 8, 9, 3"})
  void failedInsertLeavesTheFilterByteForByteUnchanged(boolean semiSorted, int b, int f, int stash) throws Exception {
    CuckooFilter filter = CuckooFilter.builder().semiSorted(semiSorted).bucketSize(b).fingerprintBits(f)
        .bucketCount(512).stashCapacity(stash).seed(3).build();
    FilterModel model = new FilterModel(filter);
    SplittableRandom r = new SplittableRandom(b * 100 + f);
    List<Long> added = new ArrayList<>();
    int failures = 0;
    while (failures < 25) {
      long item = r.nextLong();
      byte[] before = filter.toByteArray();
      long failedBefore = filter.failedInserts();
      if (model.add(item)) {
        added.add(item);
      } else {
        failures++;
        assertEquals(failedBefore + 1, filter.failedInserts());
        byte[] after = filter.toByteArray();
        // Identical except the failed-insert counter in the header (and therefore the header CRC).
        assertHeaderOnlyCounterChanged(before, after);
        model.checkAll();
      }
    }
    assertEquals(stash, filter.stashSize(), "the stash fills before inserts fail");
    // Lookups, deletes and later inserts keep working: delete a third, then insert again.
    for (int i = 0; i < added.size(); i += 3) {
      assertTrue(model.remove(added.get(i)));
    }
    model.checkAll();
    int reinserted = 0;
    for (int i = 0; i < added.size() / 3 - 1; i++) {
      if (model.add(r.nextLong())) {
        reinserted++;
      }
    }
    assertTrue(reinserted > added.size() / 4, "inserts succeed again after deletes: " + reinserted);
    model.checkAll();
  }

  static void assertHeaderOnlyCounterChanged(byte[] before, byte[] after) {
    assertEquals(before.length, after.length);
    byte[] a = before.clone();
    byte[] b = after.clone();
    for (int i = 40; i < 48; i++) { // failed inserts
      a[i] = 0;
      b[i] = 0;
    }
    for (int i = 76; i < 80; i++) { // header CRC
      a[i] = 0;
      b[i] = 0;
    }
    assertArrayEquals(a, b, "only the failed-insert counter may change");
  }

  @ParameterizedTest(name = "semiSorted={0} b={1}")
  @CsvSource({"false, 2", "false, 4", "false, 8", "true, 4"})
  void duplicatesAreLimitedToTwoBucketsWorth(boolean semiSorted, int b) {
    CuckooFilter filter = CuckooFilter.builder().semiSorted(semiSorted).bucketSize(b).fingerprintBits(16)
        .bucketCount(1000).stashCapacity(4).build();
    for (int i = 0; i < 2 * b; i++) {
      assertTrue(filter.add(42L), "copy " + (i + 1));
      assertEquals(i + 1, filter.count(42L));
    }
    assertFalse(filter.add(42L), "copy " + (2 * b + 1) + " does not fit");
    assertEquals(2 * b, filter.count(42L));
    assertEquals(0, filter.stashSize(), "a duplicate beyond the limit is refused, not stashed");
    for (int i = 2 * b; i > 0; i--) {
      assertTrue(filter.remove(42L));
      assertEquals(i - 1, filter.count(42L));
    }
    assertFalse(filter.remove(42L));
    assertFalse(filter.mightContain(42L));
  }

  /**
   * The limit holds when the bucket pair also holds another fingerprint: kick chains then end in the
   * stash, and copies used to pile up there (11 copies with b = 2 and a stash of 8), filling the stash
   * other items need and leaving a multiset that a canonical rebuild or a merge refuses.
   */
  @ParameterizedTest(name = "semiSorted={0} b={1}")
  @CsvSource({"false, 2", "false, 4", "false, 8", "true, 4"})
  void duplicatesAreLimitedWhenTheStashTakesCopies(boolean semiSorted, int b) {
    for (long other = 1000; other < 1010; other++) {
      CuckooFilter filter = CuckooFilter.builder().semiSorted(semiSorted).bucketSize(b).fingerprintBits(16)
          .bucketCount(2).stashCapacity(8).build();
      assertTrue(filter.add(other));
      int accepted = 0;
      for (int i = 0; i < 4 * b + 8; i++) {
        if (filter.add(42L)) {
          accepted++;
        }
      }
      assertEquals(2 * b, accepted, "copies of one item accepted");
      assertEquals(2 * b, filter.count(42L));
      assertEquals(2 * b + 1, filter.size());
      assertTrue(filter.mightContain(other));
      // Such a filter has a canonical layout, and merges into an empty one.
      assertEquals(filter.size(), CanonicalBuilder.canonical(filter).size());
      CuckooFilter empty = CuckooFilter.builder().semiSorted(semiSorted).bucketSize(b).fingerprintBits(16)
          .bucketCount(2).stashCapacity(8).build();
      empty.mergeInPlace(filter);
      assertEquals(2 * b, empty.count(42L));
    }
  }
}
