package dev.cuckoofilter.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.function.LongSupplier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class UnsignedLongsTest {
  /** The reference: a comparison sort under {@link Long#compareUnsigned}. */
  private static long[] referenceSorted(long[] a, int from, int to) {
    long[] copy = a.clone();
    Long[] boxed = new Long[to - from];
    for (int i = from; i < to; i++) {
      boxed[i - from] = a[i];
    }
    Arrays.sort(boxed, Long::compareUnsigned);
    for (int i = from; i < to; i++) {
      copy[i] = boxed[i - from];
    }
    return copy;
  }

  @ParameterizedTest(name = "{0} values, {1}")
  @CsvSource({
      "0, full", "1, full", "255, full", "256, full", "1000, full", "100000, full",
      "100000, narrow", "100000, negative", "100000, equal", "100000, fewDistinct", "5000, topBitsOnly"})
  void sortsInUnsignedOrderAndLeavesTheRestOfTheArrayAlone(int n, String shape) {
    SplittableRandom r = new SplittableRandom(n * 31L + shape.hashCode());
    LongSupplier values = switch (shape) {
      case "full" -> r::nextLong;
      case "narrow" -> () -> r.nextLong(1L << 30); // entry codes of a small filter: high digits all zero
      case "negative" -> () -> r.nextLong() | Long.MIN_VALUE; // top bit set: signed order would differ
      case "equal" -> () -> 0xDEADBEEFL;
      case "fewDistinct" -> () -> r.nextInt(3) * 0x8000_0000_0000_0001L;
      case "topBitsOnly" -> () -> r.nextLong() & 0xFFF0_0000_0000_0000L;
      default -> throw new IllegalArgumentException(shape);
    };
    // Sort the middle of a larger array: values outside [from, to) must not move.
    int from = 7;
    long[] a = new long[n + 13];
    for (int i = 0; i < a.length; i++) {
      a[i] = values.getAsLong();
    }
    long[] expected = referenceSorted(a, from, from + n);
    UnsignedLongs.sort(a, from, from + n);
    assertArrayEquals(expected, a);
  }

  @ParameterizedTest
  @CsvSource({"-1, 3", "2, 11", "5, 4"})
  void aBadRangeIsRefused(int from, int to) {
    assertThrows(IndexOutOfBoundsException.class, () -> UnsignedLongs.sort(new long[10], from, to));
  }
}
