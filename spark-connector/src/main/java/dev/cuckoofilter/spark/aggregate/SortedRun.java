package dev.cuckoofilter.spark.aggregate;

import java.util.Arrays;
import java.util.NoSuchElementException;

/**
 * A sorted set of 64-bit values (unsigned order) stored as variable-length deltas: about
 * {@code log2(universe / n) / 7} bytes per value, so sorted entry codes of a partition cost 2-3 bytes
 * each instead of 8, and a shuffled partial filter is a few bytes per key rather than a full table.
 *
 * <p>Encoding: the count, then the first value, then each difference to the previous value, all as
 * unsigned LEB128 varints.
 */
final class SortedRun {
  final byte[] bytes;
  final long count;

  private SortedRun(byte[] bytes, long count) {
    this.bytes = bytes;
    this.count = count;
  }

  static SortedRun of(byte[] bytes) {
    Cursor c = new Cursor(bytes, 0);
    return new SortedRun(bytes, c.remaining);
  }

  /** Encodes values that are ascending (unsigned) and distinct. */
  static SortedRun encode(long[] sorted, int n) {
    Writer w = new Writer(n);
    for (int i = 0; i < n; i++) {
      w.add(sorted[i]);
    }
    return w.finish();
  }

  Cursor cursor() {
    return new Cursor(bytes, 0);
  }

  /** Accumulates ascending distinct values. */
  static final class Writer {
    private byte[] buffer;
    private int length;
    private long previous;
    private long count;

    Writer(long expected) {
      buffer = new byte[(int) Math.min(Integer.MAX_VALUE - 16, Math.max(32, expected * 3 + 10))];
      length = 10; // room for the count, written in front by finish()
    }

    void add(long value) {
      if (length + 10 > buffer.length) {
        buffer = Arrays.copyOf(buffer, (int) Math.min(Integer.MAX_VALUE - 16, buffer.length * 3L / 2 + 32));
      }
      length = writeVarint(buffer, length, count == 0 ? value : value - previous);
      previous = value;
      count++;
    }

    SortedRun finish() {
      byte[] header = new byte[10];
      int headerLength = writeVarint(header, 0, count);
      byte[] all = new byte[headerLength + length - 10];
      System.arraycopy(header, 0, all, 0, headerLength);
      System.arraycopy(buffer, 10, all, headerLength, length - 10);
      buffer = null;
      return new SortedRun(all, count);
    }
  }

  /** Reads the values back in order. */
  static final class Cursor implements java.util.PrimitiveIterator.OfLong {
    private final byte[] bytes;
    private int position;
    private long remaining;
    private long current;
    private boolean started;

    Cursor(byte[] bytes, int offset) {
      this.bytes = bytes;
      this.position = offset;
      this.remaining = readVarint();
    }

    @Override
    public boolean hasNext() {
      return remaining > 0;
    }

    @Override
    public long nextLong() {
      if (remaining <= 0) {
        throw new NoSuchElementException();
      }
      long v = readVarint();
      current = started ? current + v : v;
      started = true;
      remaining--;
      return current;
    }

    private long readVarint() {
      long result = 0;
      int shift = 0;
      while (true) {
        if (position >= bytes.length || shift > 63) {
          throw new IllegalStateException("corrupt sorted run");
        }
        byte b = bytes[position++];
        result |= (long) (b & 0x7F) << shift;
        if (b >= 0) {
          return result;
        }
        shift += 7;
      }
    }
  }

  /** Writes {@code value} as an unsigned LEB128 varint at {@code position}; returns the new position. */
  static int writeVarint(byte[] out, int position, long value) {
    while ((value & ~0x7FL) != 0) {
      out[position++] = (byte) ((value & 0x7F) | 0x80);
      value >>>= 7;
    }
    out[position++] = (byte) value;
    return position;
  }
}
