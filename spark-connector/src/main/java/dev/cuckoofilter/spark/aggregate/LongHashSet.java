package dev.cuckoofilter.spark.aggregate;

import dev.cuckoofilter.core.UnsignedLongs;

/**
 * A set of longs in one open-addressing array (linear probing): no boxing, no per-entry objects. Collects
 * the distinct entries of a partition whose keys repeat (see {@link EntrySetBuffer}).
 */
final class LongHashSet {
  private static final long EMPTY = 0L;
  private long[] slots;
  private int mask;
  private int size;
  private boolean containsZero;

  LongHashSet(int expected) {
    int capacity = Integer.highestOneBit(Math.max(16, expected * 2 - 1)) << 1;
    slots = new long[capacity];
    mask = capacity - 1;
  }

  int size() {
    return size + (containsZero ? 1 : 0);
  }

  void add(long value) {
    if (value == EMPTY) {
      containsZero = true;
      return;
    }
    int i = index(value);
    while (true) {
      long v = slots[i];
      if (v == EMPTY) {
        slots[i] = value;
        if (++size > (slots.length >>> 1)) {
          grow();
        }
        return;
      }
      if (v == value) {
        return;
      }
      i = (i + 1) & mask;
    }
  }

  private int index(long value) {
    long h = value * 0x9E3779B97F4A7C15L;
    return (int) (h ^ (h >>> 32)) & mask;
  }

  private void grow() {
    long[] old = slots;
    slots = new long[old.length * 2];
    mask = slots.length - 1;
    for (long v : old) {
      if (v != EMPTY) {
        int i = index(v);
        while (slots[i] != EMPTY) {
          i = (i + 1) & mask;
        }
        slots[i] = v;
      }
    }
  }

  /** The values in ascending unsigned order. */
  long[] sortedUnsigned() {
    long[] out = new long[size()];
    int n = 0;
    if (containsZero) {
      out[n++] = EMPTY;
    }
    for (long v : slots) {
      if (v != EMPTY) {
        out[n++] = v;
      }
    }
    UnsignedLongs.sort(out, 0, n);
    return out;
  }
}
