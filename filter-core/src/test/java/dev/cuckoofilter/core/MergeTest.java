package dev.cuckoofilter.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class MergeTest {
  @ParameterizedTest(name = "semiSorted={0} b={1} f={2}")
  @CsvSource({"false, 2, 9", "false, 4, 12", "false, 8, 16", "true, 4, 13", "false, 4, 32", "true, 4, 5"})
  void mergeKeepsEveryItemOfBothFilters(boolean semiSorted, int b, int f) {
    CuckooFilter.Builder builder = CuckooFilter.builder().semiSorted(semiSorted).bucketSize(b).fingerprintBits(f)
        .expectedItems(20_000).seed(7);
    CuckooFilter left = builder.build();
    CuckooFilter right = builder.build();
    CuckooFilter all = builder.build();
    // The model follows the merge target: it gets left's items as they are added, right's at the merge.
    FilterModel model = new FilterModel(left);
    SplittableRandom r = new SplittableRandom(f);
    long[] items = new long[20_000];
    for (int i = 0; i < items.length; i++) {
      items[i] = r.nextLong();
      assertTrue(i % 2 == 0 ? model.add(items[i]) : right.add(items[i]));
      assertTrue(all.add(items[i]));
    }
    model.checkAll();
    left.mergeInPlace(right);
    for (int i = 1; i < items.length; i += 2) {
      model.recordAdded(items[i]);
    }
    // Size, exact pair counts (fingerprint collisions included) and no false negatives.
    model.checkAll();
    assertEquals(items.length, left.size());
    for (long item : items) {
      assertEquals(all.count(item), left.count(item), "merge stores the same multiset as inserting everything");
    }
    // Merged filters answer and delete like one built directly: the rest stays, counts stay exact.
    for (int i = 0; i < items.length; i += 3) {
      assertTrue(model.remove(items[i]));
    }
    model.checkAll();
  }

  @Test
  void incompatibleFiltersAreRefusedNamingTheParameter() {
    CuckooFilter base = CuckooFilter.builder().bucketSize(4).fingerprintBits(12).bucketCount(100).seed(1).build();
    String[][] cases = {
        {"seed", null}, {"fingerprintBits", null}, {"bucketSize", null}, {"bucketCount", null}, {"variant", null}};
    CuckooFilter[] others = {
        CuckooFilter.builder().bucketSize(4).fingerprintBits(12).bucketCount(100).seed(2).build(),
        CuckooFilter.builder().bucketSize(4).fingerprintBits(13).bucketCount(100).seed(1).build(),
        CuckooFilter.builder().bucketSize(2).fingerprintBits(12).bucketCount(100).seed(1).build(),
        CuckooFilter.builder().bucketSize(4).fingerprintBits(12).bucketCount(102).seed(1).build(),
        CuckooFilter.builder().semiSorted(true).fingerprintBits(12).bucketCount(100).seed(1).build()};
    for (int i = 0; i < others.length; i++) {
      assertFalse(base.isCompatible(others[i]));
      CuckooFilter other = others[i];
      IncompatibleFilterException e = assertThrows(IncompatibleFilterException.class, () -> base.mergeInPlace(other));
      assertTrue(e.getMessage().contains(cases[i][0]), e.getMessage());
    }
    // maxKicks and the stash capacity do not decide where items live: compatible.
    CuckooFilter differentKicks = CuckooFilter.builder().bucketSize(4).fingerprintBits(12).bucketCount(100).seed(1)
        .maxKicks(10).stashCapacity(0).build();
    assertTrue(base.isCompatible(differentKicks));
  }

  @ParameterizedTest(name = "semiSorted={0}")
  @CsvSource({"false", "true"})
  void anOverflowingMergeLeavesTheTargetUnchanged(boolean semiSorted) {
    CuckooFilter.Builder builder = CuckooFilter.builder().semiSorted(semiSorted).fingerprintBits(10).bucketCount(256)
        .seed(3).stashCapacity(2);
    CuckooFilter target = builder.build();
    CuckooFilter other = builder.build();
    SplittableRandom r = new SplittableRandom(11);
    while (target.loadFactor() < 0.6) {
      target.add(r.nextLong());
    }
    while (other.loadFactor() < 0.39) {
      other.add(r.nextLong());
    }
    byte[] before = target.toByteArray();
    // Together 99% of the entries: more than fits, but not rejected by the size pre-check.
    FilterFullException e = assertThrows(FilterFullException.class, () -> target.mergeInPlace(other));
    assertTrue(e.getMessage().contains("unchanged"), e.getMessage());
    assertArrayEquals(before, target.toByteArray(), "the target is byte-for-byte unchanged");
    // The pre-check: more items than entries.
    CuckooFilter huge = builder.build();
    while (huge.loadFactor() < 0.9) {
      huge.add(r.nextLong());
    }
    FilterFullException pre = assertThrows(FilterFullException.class, () -> target.mergeInPlace(huge));
    assertTrue(pre.getMessage().contains("exceed"), pre.getMessage());
    assertArrayEquals(before, target.toByteArray());
  }

  /**
   * As above with fingerprints already in the target's stash, which must survive the refused merge. The
   * merge's inserts kick entries around and fail only once the stash is full, so the target's free stash
   * slots were taken before the failure and the restore has a table and a stash to put back.
   */
  @ParameterizedTest(name = "semiSorted={0}")
  @CsvSource({"false", "true"})
  void anOverflowingMergeRestoresATargetWithAStash(boolean semiSorted) {
    CuckooFilter.Builder builder = CuckooFilter.builder().semiSorted(semiSorted).fingerprintBits(10).bucketCount(64)
        .maxKicks(5).stashCapacity(4).seed(13);
    CuckooFilter target = builder.build();
    FilterModel model = new FilterModel(target);
    SplittableRandom r = new SplittableRandom(17);
    List<Long> added = new ArrayList<>();
    // Short kick chains send fingerprints to the stash before the table is full.
    while (target.stashSize() < 2) {
      long item = r.nextLong();
      if (model.add(item)) {
        added.add(item);
      }
    }
    // Exactly the free entries and stash slots: more than fits, but not refused by the size pre-check.
    CuckooFilter other = builder.build();
    while (other.size() < target.capacity() + 4 - target.size()) {
      other.add(r.nextLong());
    }
    byte[] before = target.toByteArray();
    byte[] otherBefore = other.toByteArray();
    FilterFullException e = assertThrows(FilterFullException.class, () -> target.mergeInPlace(other));
    assertTrue(e.getMessage().contains("could not place"), e.getMessage());
    assertArrayEquals(before, target.toByteArray(), "the target, stash included, is byte-for-byte unchanged");
    assertArrayEquals(otherBefore, other.toByteArray(), "the source is not touched");
    assertEquals(2, target.stashSize());
    model.checkAll();
    // The restored filter keeps working: deletes (which refill entries from the stash), a merge, adds.
    for (int i = 0; i < added.size(); i += 3) {
      assertTrue(model.remove(added.get(i)));
    }
    model.checkAll();
    CuckooFilter few = builder.build();
    for (int i = 0; i < 10; i++) {
      long item = r.nextLong();
      assertTrue(few.add(item));
      model.recordAdded(item);
    }
    target.mergeInPlace(few);
    model.checkAll();
    int reinserted = 0;
    for (int i = 0; i < added.size() / 4; i++) {
      reinserted += model.add(r.nextLong()) ? 1 : 0;
    }
    assertTrue(reinserted > 0, "inserts succeed after the refused merge");
    model.checkAll();
  }

  @Test
  void mergeCarriesStashedFingerprintsAndSelfMergeDoublesCounts() {
    CuckooFilter.Builder builder = CuckooFilter.builder().fingerprintBits(8).bucketCount(16).maxKicks(3)
        .stashCapacity(4).seed(5);
    CuckooFilter withStash = builder.build();
    SplittableRandom r = new SplittableRandom(2);
    long[] added = new long[80];
    int n = 0;
    while (withStash.stashSize() == 0) {
      long item = r.nextLong();
      if (withStash.add(item)) {
        added[n++] = item;
      }
    }
    CuckooFilter empty = CuckooFilter.builder().fingerprintBits(8).bucketCount(16).maxKicks(500).stashCapacity(4)
        .seed(5).build();
    empty.mergeInPlace(withStash);
    assertEquals(withStash.size(), empty.size());
    for (int i = 0; i < n; i++) {
      assertTrue(empty.mightContain(added[i]));
    }
    CuckooFilter small = CuckooFilter.builder().fingerprintBits(16).bucketCount(1000).seed(5).build();
    for (long i = 0; i < 100; i++) {
      small.add(i);
    }
    small.mergeInPlace(small);
    assertEquals(200, small.size());
    for (long i = 0; i < 100; i++) {
      assertEquals(2, small.count(i));
    }
  }
}
