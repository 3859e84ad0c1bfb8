package dev.cuckoofilter.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoofilter.core.format.FilterFormat;
import dev.cuckoofilter.core.hash.Addressing;
import dev.cuckoofilter.core.hash.CuckooHash;
import dev.cuckoofilter.core.table.BucketStorage;
import java.io.ByteArrayInputStream;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Tables are stored in segments so they can exceed 2 GiB and 2^31 entries. Segment boundaries are
 * tested with tiny segments (a few buckets each) instead of gigabytes: a segmented filter must behave
 * and serialize exactly like a single-segment one.
 */
class SegmentTest {
  @ParameterizedTest(name = "semiSorted={0} b={1} f={2} segment={3}B")
  @CsvSource({"false, 4, 12, 64", "false, 2, 7, 64", "false, 8, 32, 264", "false, 4, 15, 72", "false, 8, 9, 128",
      "true, 4, 13, 64", "true, 4, 20, 100", "true, 4, 5, 64", "false, 2, 32, 72"})
  void segmentedFiltersMatchUnsegmentedOnes(boolean semiSorted, int b, int f, int segmentBytes) throws Exception {
    long buckets = 2 * 523; // not a multiple of any segment's bucket count
    CuckooFilter.Builder builder = CuckooFilter.builder().semiSorted(semiSorted).bucketSize(b).fingerprintBits(f)
        .bucketCount(buckets).seed(99);
    CuckooFilter plain = builder.build();
    CuckooFilter segmented = builder.maxSegmentBytes(segmentBytes).build();
    FilterModel model = new FilterModel(segmented);
    SplittableRandom r = new SplittableRandom(f);
    long[] items = new long[(int) (plain.capacity() * 0.93)];
    for (int i = 0; i < items.length; i++) {
      items[i] = r.nextLong();
      assertEquals(plain.add(items[i]), model.add(items[i]));
    }
    for (int i = 0; i < items.length; i += 2) {
      assertEquals(plain.remove(items[i]), model.remove(items[i]));
    }
    model.checkAll();
    byte[] bytes = plain.toByteArray();
    assertArrayEquals(bytes, segmented.toByteArray(), "serialized form does not depend on segmentation");
    assertEquals(plain, segmented);
    // Reading into tiny segments gives the same filter too.
    var image = FilterFormat.read(new ByteArrayInputStream(bytes), bytes.length, true, segmentBytes);
    assertTrue(image.storage().segmentCount() > 10, "really segmented: " + image.storage().segmentCount());
    assertEquals(segmented.size(), image.itemCount());
  }

  @Test
  void bucketsAtSegmentBoundariesWork() {
    // 48-bit buckets, 64-byte segments: 8 buckets per segment; use items whose buckets sit at the edges.
    CuckooFilter filter = CuckooFilter.builder().fingerprintBits(12).bucketCount(64).maxSegmentBytes(64).seed(1).build();
    SplittableRandom r = new SplittableRandom(3);
    int edgeItems = 0;
    for (int i = 0; i < 100_000 && edgeItems < 180; i++) {
      long item = r.nextLong();
      long h = CuckooHash.hashLong(item, 1);
      long bucket = Addressing.bucketIndex(h, 64);
      if (bucket % 8 == 0 || bucket % 8 == 7) {
        if (filter.add(item)) {
          edgeItems++;
          assertTrue(filter.mightContain(item));
        }
      }
    }
    assertTrue(edgeItems > 100);
    assertEquals(edgeItems, filter.size());
  }

  @Test
  void segmentArithmeticForTablesBeyondTwoGibibytes() {
    // 2^32 buckets of 8 x 32 bits = 128 GiB: computed, not allocated.
    long buckets = 1L << 32;
    long[] lengths = BucketStorage.segmentDataLengths(buckets, 256, BucketStorage.DEFAULT_MAX_SEGMENT_BYTES);
    long total = 0;
    for (long l : lengths) {
      total += l;
      assertTrue(l + BucketStorage.PADDING <= BucketStorage.DEFAULT_MAX_SEGMENT_BYTES);
    }
    assertEquals(BucketStorage.tableBytes(buckets, 256), total);
    assertEquals(128L << 30, total);
    // 2^31 + 2 buckets of 4 x 12 bits: more than 2^33 entries, 12 GiB.
    long odd = (1L << 31) + 2;
    long sum = 0;
    for (long l : BucketStorage.segmentDataLengths(odd, 48, BucketStorage.DEFAULT_MAX_SEGMENT_BYTES)) {
      sum += l;
    }
    assertEquals(odd * 6, sum);
  }
}
