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
