package dev.cuckoofilter.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
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
      "false, 8, 32, 1073741824, false"})
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
  }
}
