package dev.cuckoofilter.spark.aggregate;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeSet;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The partial-aggregation buffer against an exact set, in unsigned order, through every path. */
class EntrySetBufferTest {
  @ParameterizedTest(name = "{0} buffers, {1} values each, {2} distinct")
  @CsvSource({
      "1, 0, 1", "1, 1, 1", "1, 5000, 3", "3, 1023, 2000", "3, 1025, 1000000", "40, 3000, 50000",
      "2, 300000, 1000000000", "5, 200000, 100", "1, 400000, 150000",
      // Runs that hardly overlap (merging waits longer after a useless compaction) and runs that do.
      "150, 700, 1000000000", "150, 700, 2000",
      // Repeats that only show after several compactions of a growing array.
      "1, 600000, 400000"})
  void holdsExactlyTheDistinctValuesInUnsignedOrder(int buffers, int perBuffer, long distinct) {
    SplittableRandom r = new SplittableRandom(buffers * 7919L + perBuffer);
    TreeSet<Long> expected = new TreeSet<>(Long::compareUnsigned);
    List<EntrySetBuffer> parts = new ArrayList<>();
    for (int b = 0; b < buffers; b++) {
      EntrySetBuffer part = new EntrySetBuffer();
      for (int i = 0; i < perBuffer; i++) {
        // Spread the distinct values over the whole 64-bit range, zero and the sign bit included.
        long v = r.nextLong(distinct) * 0x9E3779B97F4A7C15L;
        part.add(v);
        expected.add(v);
      }
      // Half the parts travel as bytes, as partial results do between stages.
      parts.add(b % 2 == 0 ? part : EntrySetBuffer.deserialize(part.serialize()));
    }
    EntrySetBuffer all = new EntrySetBuffer();
    for (EntrySetBuffer part : parts) {
      all.merge(part);
    }
    long[] want = expected.stream().mapToLong(Long::longValue).toArray();
    // Merged on the fly from the runs as they are (twice, counted between), then from one compact run.
    // Run after run, repeats across runs included: the same set, as many values as heldCount says.
    List<Long> held = new ArrayList<>();
    all.forEachHeld(held::add);
    assertEquals(all.heldCount(), held.size());
    TreeSet<Long> heldSet = new TreeSet<>(Long::compareUnsigned);
    heldSet.addAll(held);
    assertEquals(expected, heldSet);
    assertArrayEquals(want, drain(all));
    assertEquals(expected.size(), all.count());
    assertArrayEquals(want, drain(all));
    assertArrayEquals(want, drain(EntrySetBuffer.deserialize(all.serialize())));
  }

  private static long[] drain(EntrySetBuffer buffer) {
    List<Long> out = new ArrayList<>();
    buffer.forEachEntry(out::add);
    return out.stream().mapToLong(Long::longValue).toArray();
  }
}
