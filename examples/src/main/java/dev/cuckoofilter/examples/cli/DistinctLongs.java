package dev.cuckoofilter.examples.cli;

import java.util.Arrays;
import java.util.function.LongConsumer;

/**
 * The distinct values of a stream of longs in one sorted, duplicate-free array: values are appended and
 * every time the array fills up it is sorted and deduplicated, and grown only if that does not free
 * half of it. Memory stays a small multiple of 8 bytes per distinct value, however many duplicates the
 * stream has (a key column read row by row).
 */
final class DistinctLongs implements LongConsumer {
  private long[] values = new long[1024];
  private int size;
  /** {@code values[0, distinctPrefix)} is sorted and duplicate-free. */
  private int distinctPrefix;

  @Override
  public void accept(long value) {
    if (size == values.length) {
      compact();
      if (size > values.length / 2) {
        values = Arrays.copyOf(values, values.length * 2);
      }
    }
    values[size++] = value;
  }

  /** The distinct values so far, ascending. */
  long[] toSortedArray() {
    compact();
    return Arrays.copyOf(values, size);
  }

  private void compact() {
    if (distinctPrefix == size) {
      return;
    }
    Arrays.sort(values, 0, size);
    int n = 0;
    for (int i = 0; i < size; i++) {
      if (n == 0 || values[i] != values[n - 1]) {
        values[n++] = values[i];
      }
    }
    size = n;
    distinctPrefix = n;
  }
}
