package dev.cuckoofilter.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Property-based runs: random add / remove / lookup sequences checked against an exact model after
 * every operation, for every bucket size, every fingerprint width and both variants, driven far past
 * capacity so that inserts fail (and must lose nothing). At each checkpoint the filter also goes through
 * the binary format and back, which must give the same bytes and the model's content.
 */
class ModelBasedTest {
  static final int MIN_BITS = 4;
  static final int MAX_BITS = 32;

  /** Every width for every layout: packed b = 2, 4, 8 and semi-sorted b = 4 (which also takes f = 4). */
  static Stream<Arguments> configurations() {
    List<Arguments> list = new ArrayList<>();
    for (int f = MIN_BITS; f <= MAX_BITS; f++) {
      for (int b : new int[] {2, 4, 8}) {
        list.add(Arguments.of(false, b, f));
      }
      list.add(Arguments.of(true, 4, f));
    }
    return list.stream();
  }

  @ParameterizedTest(name = "semiSorted={0} b={1} f={2}")
  @MethodSource("configurations")
  void randomOperationsAgreeWithTheModel(boolean semiSorted, int b, int f) throws IOException {
    SplittableRandom r = new SplittableRandom(1000L * f + 10L * b + (semiSorted ? 1 : 0));
    // Small tables (16 to 94 buckets) keep the sweep over all 116 layouts fast and reach full load.
    long buckets = 2 * (8 + r.nextInt(40));
    CuckooFilter filter = CuckooFilter.builder().semiSorted(semiSorted).bucketSize(b).fingerprintBits(f)
        .bucketCount(buckets).maxKicks(50 + r.nextInt(200)).stashCapacity(r.nextInt(3)).seed(r.nextLong()).build();
    FilterModel model = new FilterModel(filter);
    // A small universe: repeated items exercise duplicates, short fingerprints exercise collisions.
    long universe = filter.capacity() * 3L;
    List<Long> present = new ArrayList<>();
    int failures = 0;
    for (int op = 0; op < 6000; op++) {
      int kind = r.nextInt(100);
      long item = r.nextLong(universe);
      if (kind < 55) {
        if (model.add(item)) {
          present.add(item);
        } else {
          failures++;
        }
      } else if (kind < 80 && !present.isEmpty()) {
        long victim = present.remove(r.nextInt(present.size()));
        assertTrue(model.remove(victim), "an added item can always be removed");
      } else if (kind < 85) {
        // Removing an absent item: allowed, must behave exactly like the model (pair level).
        if (model.pairCount(item) == 0) {
          model.remove(item);
        }
      }
      model.checkItem(item);
      if (op % 500 == 0) {
        model.checkAll();
        checkRoundTrip(model);
      }
    }
    model.checkAll();
    checkRoundTrip(model);
    assertTrue(failures > 0, "the run should reach a full filter");
    assertTrue(filter.failedInserts() >= failures, "failed inserts are counted");
  }

  /**
   * The runs above use at most 94 buckets, too few for the table of alternate offsets that large filters
   * use instead of the formula (CuckooFilter.offsetTable: f <= 16 and a table at least 64 times the offsets'
   * {@code 4 << f} bytes). Here the smallest tables that use it run the same model checks through full load
   * and failed inserts, with the entry codes pinning every alternate bucket to the formula. Every update
   * also goes to a twin through addAll / removeAll, which must leave the same bytes, and batched lookups
   * must give the per-item answers.
   */
  @ParameterizedTest(name = "semiSorted={0} b={1} f={2}")
  @CsvSource({"false, 2, 5", "false, 2, 8", "false, 4, 5", "false, 4, 8", "false, 8, 5", "false, 8, 8",
      "true, 4, 5", "true, 4, 8"})
  void filtersWithTheOffsetTableAgreeWithTheModel(boolean semiSorted, int b, int f) throws IOException {
    SplittableRandom r = new SplittableRandom(1000L * f + 10L * b + (semiSorted ? 1 : 0) + 7);
    CuckooFilter.Builder builder = CuckooFilter.builder().semiSorted(semiSorted).bucketSize(b).fingerprintBits(f)
        .bucketCount(2).maxKicks(10 + r.nextInt(50)).stashCapacity(r.nextInt(3)).seed(r.nextLong());
    // The smallest even bucket count whose table is 64 times the offsets' (13 000 to 75 000 entries here).
    long buckets = ((256L << f) * 8 / builder.parameters().bucketBits() + 2) & ~1L;
    CuckooFilter filter = builder.bucketCount(buckets).build();
    CuckooFilter batched = builder.build();
    assertTrue(filter.usesOffsetTable(), () -> "no offset table at " + buckets + " buckets: " + filter);
    FilterModel model = new FilterModel(filter);
    long universe = filter.capacity() * 3L;
    int block = (int) (filter.capacity() / 20);
    List<Long> present = new ArrayList<>();
    int failures = 0;
    int fastLookups = 0;
    double peakLoad = 0;
    for (int round = 1; round <= 80; round++) {
      int kind = r.nextInt(100);
      if (kind < 60) {
        // Near full load most adds fail, each after a whole kick chain: a few per round are enough there.
        long room = filter.capacity() - filter.size() + block / 4;
        long[] items = r.longs(Math.min(1 + r.nextInt(2 * block), room), 0, universe).toArray();
        int added = 0;
        for (long item : items) {
          if (model.add(item)) {
            present.add(item);
            added++;
          } else {
            failures++;
          }
          model.checkItem(item);
        }
        assertEquals(added, batched.addAll(items), "addAll stores what add stores");
      } else if (kind < 85) {
        // Present items, and absent ones whose pair is empty (removing those must change nothing).
        long[] items = new long[1 + r.nextInt(block / 2)];
        int victims = 0;
        for (int i = 0; i < items.length; i++) {
          long absent = r.nextLong(universe);
          boolean useAbsent = present.isEmpty() || (r.nextInt(5) == 0 && model.pairCount(absent) == 0);
          items[i] = useAbsent ? absent : present.remove(r.nextInt(present.size()));
          victims += useAbsent ? 0 : 1;
        }
        int removed = 0;
        for (long item : items) {
          removed += model.remove(item) ? 1 : 0;
          model.checkItem(item);
        }
        assertEquals(victims, removed, "every added item can be removed, and nothing else");
        assertEquals(removed, batched.removeAll(items), "removeAll removes what remove removes");
      } else {
        long[] queries = new long[1 + r.nextInt(block)];
        for (int i = 0; i < queries.length; i++) {
          queries[i] = present.isEmpty() || r.nextBoolean()
              ? r.nextLong(universe) : present.get(r.nextInt(present.size()));
        }
        boolean[] results = new boolean[queries.length];
        int found = filter.mightContainAll(queries, results);
        int expected = 0;
        for (int i = 0; i < queries.length; i++) {
          model.checkItem(queries[i]);
          assertEquals(filter.mightContain(queries[i]), results[i], "mightContainAll answers as mightContain");
          expected += results[i] ? 1 : 0;
        }
        assertEquals(expected, found);
        // With an empty stash, batched lookups take the block path rather than one call per key.
        fastLookups += filter.stashSize() == 0 ? 1 : 0;
      }
      assertArrayEquals(filter.toByteArray(), batched.toByteArray(), "batched updates leave the same bytes");
      peakLoad = Math.max(peakLoad, filter.loadFactor());
      if (round % 40 == 0) {
        model.checkAll();
        model.checkEntryCodes();
      }
    }
    checkRoundTrip(model);
    assertTrue(failures > 0 && filter.failedInserts() >= failures, "the run should reach a full filter");
    assertTrue(peakLoad > 0.9, "the run should reach high load, peaked at " + peakLoad);
    assertTrue(fastLookups > 0, "no batched lookup ran with an empty stash");
  }

  /** Both readers give a filter that re-serializes to the same bytes and holds exactly the model's content. */
  private static void checkRoundTrip(FilterModel model) throws IOException {
    byte[] bytes = model.filter.toByteArray();
    for (CuckooFilter copy : List.of(CuckooFilter.fromByteArray(bytes),
        CuckooFilter.readFrom(new ByteArrayInputStream(bytes)))) {
      assertArrayEquals(bytes, copy.toByteArray(), "re-serialization");
      assertEquals(model.filter, copy);
      assertEquals(model.filter.stashSize(), copy.stashSize());
      assertEquals(model.filter.failedInserts(), copy.failedInserts());
      model.checkAll(copy);
    }
  }
}
