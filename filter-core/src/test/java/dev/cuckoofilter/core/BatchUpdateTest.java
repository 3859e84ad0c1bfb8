package dev.cuckoofilter.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoofilter.core.hash.CuckooHash;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Batched adds and removes leave exactly the filter that single calls in the same order leave: the same
 * bytes, the same counts, the same failed inserts, for every layout, through a full table and the stash.
 */
class BatchUpdateTest {
  @ParameterizedTest(name = "semiSorted={0} b={1} f={2} segment={3} maxKicks={4}")
  @CsvSource({"false, 4, 12, 1073741824, 500", "false, 2, 9, 1073741824, 500", "false, 8, 16, 1073741824, 500",
      "false, 4, 12, 64, 500", "true, 4, 13, 1073741824, 500", "false, 4, 12, 1073741824, 0",
      "false, 8, 32, 1073741824, 500", "false, 4, 19, 1073741824, 20", "true, 4, 9, 256, 500"})
  void batchEqualsSingleCalls(boolean semiSorted, int b, int f, int segment, int maxKicks) {
    CuckooFilter.Builder builder = CuckooFilter.builder().semiSorted(semiSorted).bucketSize(b).fingerprintBits(f)
        .bucketCount(700).maxSegmentBytes(segment).maxKicks(maxKicks).seed(11);
    CuckooFilter single = builder.build();
    CuckooFilter batched = builder.build();
    SplittableRandom r = new SplittableRandom(b * 1000 + f);

    // More keys than fit, with repeats: the table fills, the stash takes some, later adds fail.
    long[] keys = new long[(int) (single.capacity() * 1.2)];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = i > 0 && r.nextInt(10) == 0 ? keys[r.nextInt(i)] : r.nextLong();
    }
    int added = 0;
    for (long key : keys) {
      added += single.add(key) ? 1 : 0;
    }
    // In uneven pieces, so blocks start and end anywhere (ProbeBlock.SIZE is 256).
    int batchAdded = 0;
    for (int from = 0; from < keys.length; ) {
      int to = Math.min(keys.length, from + 1 + r.nextInt(600));
      batchAdded += batched.addAll(keys, from, to);
      from = to;
    }
    assertTrue(single.failedInserts() > 0, "the table should have filled: " + single);
    assertEquals(added, batchAdded);
    assertSame(single, batched);

    // Removes of present keys, absent keys and keys added more than once.
    long[] removals = new long[keys.length];
    for (int i = 0; i < removals.length; i++) {
      removals[i] = r.nextInt(4) == 0 ? r.nextLong() : keys[r.nextInt(keys.length)];
    }
    int removed = 0;
    for (long key : removals) {
      removed += single.remove(key) ? 1 : 0;
    }
    assertEquals(removed, batched.removeAll(removals));
    assertSame(single, batched);

    // Hash forms: the same keys by their hashes, added back and removed again.
    long[] hashes = new long[removals.length];
    for (int i = 0; i < hashes.length; i++) {
      hashes[i] = CuckooHash.hashLong(removals[i], single.seed());
    }
    int readded = 0;
    for (long hash : hashes) {
      readded += single.addHash(hash) ? 1 : 0;
    }
    assertEquals(readded, batched.addHashes(hashes, 0, hashes.length));
    assertSame(single, batched);
    int removedAgain = 0;
    for (int i = 0; i < hashes.length / 2; i++) {
      removedAgain += single.removeHash(hashes[i]) ? 1 : 0;
    }
    assertEquals(removedAgain, batched.removeHashes(hashes, 0, hashes.length / 2));
    assertSame(single, batched);
  }

  @Test
  void everyAddedKeyIsFoundAndRemovedByTheBatch() {
    CuckooFilter filter = CuckooFilter.create(100_000, 0.001);
    long[] keys = new SplittableRandom(3).longs(100_000).toArray();
    assertEquals(keys.length, filter.addAll(keys));
    assertEquals(keys.length, filter.size());
    for (long key : keys) {
      assertTrue(filter.mightContain(key));
    }
    assertEquals(keys.length, filter.removeAll(keys));
    assertEquals(0, filter.size());
    assertEquals(0, filter.addAll(keys, 5, 5));
    assertEquals(0, filter.removeAll(new long[0]));
  }

  @Test
  void rangesAreChecked() {
    CuckooFilter filter = CuckooFilter.create(10, 0.01);
    assertThrows(IndexOutOfBoundsException.class, () -> filter.addAll(new long[5], 0, 6));
    assertThrows(IndexOutOfBoundsException.class, () -> filter.addAll(new long[5], 3, 2));
    assertThrows(IndexOutOfBoundsException.class, () -> filter.removeAll(new long[5], -1, 2));
    assertThrows(IndexOutOfBoundsException.class, () -> filter.addHashes(new long[5], 0, 6));
    assertThrows(IndexOutOfBoundsException.class, () -> filter.removeHashes(new long[5], 0, 6));
    // Messages name the arguments.
    String add = assertThrows(IndexOutOfBoundsException.class, () -> filter.addAll(new long[5], 3, 2)).getMessage();
    assertTrue(add.contains("from 3") && add.contains("to 2") && add.contains("items"), add);
    String remove = assertThrows(IndexOutOfBoundsException.class, () -> filter.removeHashes(new long[5], 0, 6))
        .getMessage();
    assertTrue(remove.contains("to 6") && remove.contains("hashes") && remove.contains("5"), remove);
    assertEquals(0, filter.size());
  }

  private static void assertSame(CuckooFilter expected, CuckooFilter actual) {
    assertEquals(expected.size(), actual.size());
    assertEquals(expected.failedInserts(), actual.failedInserts());
    assertEquals(expected.stashSize(), actual.stashSize());
    assertArrayEquals(expected.toByteArray(), actual.toByteArray());
  }
}
