package dev.cuckoofilter.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.cuckoofilter.core.hash.CuckooHash;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Batched lookups give exactly the per-item answers, for every layout and with a stash. */
class BatchLookupTest {
  @ParameterizedTest(name = "semiSorted={0} b={1} f={2} segment={3} stash={4}")
  @CsvSource({"false, 4, 12, 1073741824, false", "false, 2, 9, 1073741824, false", "false, 8, 16, 1073741824, false",
      "false, 4, 12, 64, false", "true, 4, 13, 1073741824, false", "false, 4, 12, 1073741824, true",
      "false, 8, 32, 1073741824, false", "false, 4, 19, 1073741824, false", "false, 2, 30, 1073741824, false"})
  void batchEqualsPerItem(boolean semiSorted, int b, int f, int segment, boolean stash) {
    CuckooFilter filter = CuckooFilter.builder().semiSorted(semiSorted).bucketSize(b).fingerprintBits(f)
        .bucketCount(2000).maxSegmentBytes(segment).maxKicks(stash ? 0 : 500).seed(4).build();
    SplittableRandom r = new SplittableRandom(f);
    long[] members = new long[(int) (filter.capacity() * 0.8)];
    int n = 0;
    for (long item : members) {
      long key = r.nextLong();
      if (filter.add(key)) {
        members[n++] = key;
      }
    }
    assertEquals(stash, filter.stashSize() > 0, filter::toString);
    long[] queries = new long[10_000];
    for (int i = 0; i < queries.length; i++) {
      queries[i] = i % 2 == 0 ? members[r.nextInt(n)] : r.nextLong();
    }
    boolean[] expected = new boolean[queries.length];
    int positives = 0;
    for (int i = 0; i < queries.length; i++) {
      expected[i] = filter.mightContain(queries[i]);
      positives += expected[i] ? 1 : 0;
    }
    boolean[] results = new boolean[queries.length];
    assertEquals(positives, filter.mightContainAll(queries, results));
    assertArrayEquals(expected, results);

    // A sub-range leaves the rest of the results untouched.
    boolean[] partial = new boolean[queries.length];
    filter.mightContainAll(queries, 1000, 1777, partial);
    for (int i = 0; i < queries.length; i++) {
      assertEquals(i >= 1000 && i < 1777 && expected[i], partial[i]);
    }

    long[] hashes = new long[queries.length];
    for (int i = 0; i < queries.length; i++) {
      hashes[i] = CuckooHash.hashLong(queries[i], filter.seed());
    }
    boolean[] byHash = new boolean[queries.length];
    filter.mightContainHashes(hashes, 0, hashes.length, byHash);
    assertArrayEquals(expected, byHash);
  }

  @Test
  void rangesAreChecked() {
    CuckooFilter filter = CuckooFilter.create(10, 0.01);
    assertThrows(IndexOutOfBoundsException.class, () -> filter.mightContainAll(new long[5], 0, 6, new boolean[6]));
    assertThrows(IndexOutOfBoundsException.class, () -> filter.mightContainAll(new long[5], 0, 5, new boolean[4]));
    // The message names the array that is too short: the JDK's "Range [0, 5) out of bounds for length 4" did not
    // say whether the keys or the results were meant.
    String results = assertThrows(IndexOutOfBoundsException.class,
        () -> filter.mightContainAll(new long[5], new boolean[4])).getMessage();
    assertTrue(results.contains("results") && results.contains("4"), results);
    String items = assertThrows(IndexOutOfBoundsException.class,
        () -> filter.mightContainAll(new long[5], 0, 6, new boolean[6])).getMessage();
    assertTrue(items.contains("items") && items.contains("to 6"), items);
    String hashes = assertThrows(IndexOutOfBoundsException.class,
        () -> filter.mightContainHashes(new long[5], 3, 2, new boolean[5])).getMessage();
    assertTrue(hashes.contains("from 3") && hashes.contains("to 2"), hashes);
  }

  /**
   * Buckets of two 8-byte windows (57 < b*f <= 114) have their own fast path on one-segment tables; it must
   * answer exactly as the general path of a segmented table with the same content.
   */
  @ParameterizedTest(name = "b={0} f={1}")
  @CsvSource({"4, 15", "4, 19", "4, 28", "2, 29", "2, 32", "8, 8", "8, 14"})
  void twoWindowFastPathAnswersLikeTheGeneralPath(int b, int f) {
    CuckooFilter fast = CuckooFilter.builder().bucketSize(b).fingerprintBits(f).bucketCount(4000).seed(9).build();
    CuckooFilter general = CuckooFilter.builder().bucketSize(b).fingerprintBits(f).bucketCount(4000).seed(9)
        .maxSegmentBytes(256).build();
    SplittableRandom r = new SplittableRandom(b * 100 + f);
    for (int i = 0; i < fast.capacity() * 0.9; i++) {
      long key = r.nextLong();
      assertEquals(fast.add(key), general.add(key));
    }
    long[] queries = new long[200_000];
    for (int i = 0; i < queries.length; i++) {
      queries[i] = r.nextLong();
    }
    boolean[] fastResults = new boolean[queries.length];
    boolean[] generalResults = new boolean[queries.length];
    fast.mightContainAll(queries, fastResults);
    general.mightContainAll(queries, generalResults);
    int positives = 0;
    for (int i = 0; i < queries.length; i++) {
      assertEquals(general.mightContain(queries[i]), fast.mightContain(queries[i]));
      positives += fastResults[i] ? 1 : 0;
    }
    assertArrayEquals(generalResults, fastResults);
    // Absent keys do hit at narrow widths: the comparison covers positive answers too.
    if (f <= 15) {
      assertTrue(positives > 0, "expected some false positives at f=" + f);
    }
  }
}
