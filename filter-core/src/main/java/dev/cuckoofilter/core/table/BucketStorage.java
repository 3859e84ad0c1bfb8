package dev.cuckoofilter.core.table;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The bits of a cuckoo table: {@code bucketCount} buckets of {@code bucketBits} bits each, packed
 * back to back, LSB-first, in little-endian bytes (the table section of {@code docs/FORMAT.md}).
 *
 * <p>The bytes live in segments of {@code 2^k} buckets so a table can exceed a Java array (2 GiB) and
 * 2^31 entries. A segment's data is exactly the corresponding byte range of the serialized table
 * ({@code 2^k * bucketBits} is a multiple of 8), plus {@value #PADDING} zero bytes of padding so any
 * bit can be read with one unaligned 8-byte load. Tables that fit in one segment (the common case)
 * take a branch-predictable fast path without the segment lookup.
 *
 * <p>Reads are pure; writes are not thread-safe (see {@code CuckooFilter}).
 */
public final class BucketStorage {
  /**
   * Segments are at most this large unless configured otherwise: 1 GiB. Tables up to this size are one
   * array and take the fast path (measured: a segment lookup per probe costs about 25% of lookup
   * throughput on a 100 MB table).
   */
  public static final int DEFAULT_MAX_SEGMENT_BYTES = 1 << 30;
  /** Zero bytes after each segment's data, so an 8-byte window read never leaves the array. */
  public static final int PADDING = 8;
  /** Widest field a single window access can read or write. */
  public static final int MAX_WINDOW_BITS = 57;

  private static final VarHandle LONG_LE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private final long bucketCount;
  private final long bucketBits;
  private final int segmentShift;
  private final long segmentMask;
  private final byte[][] segments;
  /** The only segment, or null when there are several. */
  private final byte[] single;

  /** Allocates a zeroed (empty) table. */
  public BucketStorage(long bucketCount, int bucketBits, int maxSegmentBytes) {
    this(bucketCount, bucketBits, maxSegmentBytes, true);
  }

  private BucketStorage(long bucketCount, int bucketBits, int maxSegmentBytes, boolean allocate) {
    if (bucketCount <= 0) {
      throw new IllegalArgumentException("bucketCount must be positive, got " + bucketCount);
    }
    if (bucketBits <= 0 || bucketBits > 256) {
      throw new IllegalArgumentException("bucketBits must be in [1, 256], got " + bucketBits);
    }
    this.bucketCount = bucketCount;
    this.bucketBits = bucketBits;
    this.segmentShift = segmentShift(bucketCount, bucketBits, maxSegmentBytes);
    this.segmentMask = (1L << segmentShift) - 1;
    int count = (int) ((bucketCount + segmentMask) >>> segmentShift);
    this.segments = new byte[count][];
    if (allocate) {
      for (int s = 0; s < count; s++) {
        segments[s] = new byte[segmentDataLength(s) + PADDING];
      }
    }
    this.single = count == 1 ? segments[0] : null;
  }

  /**
   * Builds a table over already-filled segment arrays (as produced by the format reader). Each array
   * must be its segment's length in {@link #segmentDataLengths(long, int, int)} plus {@link #PADDING} bytes
   * long.
   */
  public static BucketStorage wrap(long bucketCount, int bucketBits, int maxSegmentBytes, byte[][] segmentArrays) {
    BucketStorage layout = new BucketStorage(bucketCount, bucketBits, maxSegmentBytes, false);
    if (segmentArrays.length != layout.segments.length) {
      throw new IllegalArgumentException("expected " + layout.segments.length + " segments, got " + segmentArrays.length);
    }
    for (int s = 0; s < segmentArrays.length; s++) {
      if (segmentArrays[s].length != layout.segmentDataLength(s) + PADDING) {
        throw new IllegalArgumentException("segment " + s + " has " + segmentArrays[s].length + " bytes, expected "
            + (layout.segmentDataLength(s) + PADDING));
      }
    }
    return new BucketStorage(layout, segmentArrays);
  }

  private BucketStorage(BucketStorage shape, byte[][] segmentArrays) {
    this.bucketCount = shape.bucketCount;
    this.bucketBits = shape.bucketBits;
    this.segmentShift = shape.segmentShift;
    this.segmentMask = shape.segmentMask;
    this.segments = segmentArrays;
    this.single = segmentArrays.length == 1 ? segmentArrays[0] : null;
  }

  /** log2 of the buckets per segment: the largest power of two whose data and padding fit the limit. */
  private static int segmentShift(long bucketCount, int bucketBits, int maxSegmentBytes) {
    if (maxSegmentBytes < 64) {
      throw new IllegalArgumentException("maxSegmentBytes must be at least 64, got " + maxSegmentBytes);
    }
    // At least 8 buckets per segment so a segment's data is a whole number of bytes.
    int shift = 3;
    while (shift < 62 && (((1L << (shift + 1)) * bucketBits) >>> 3) + PADDING <= maxSegmentBytes
        && (1L << shift) < bucketCount) {
      shift++;
    }
    if ((((1L << shift) * bucketBits) >>> 3) + PADDING > maxSegmentBytes) {
      throw new IllegalArgumentException("maxSegmentBytes " + maxSegmentBytes + " cannot hold 8 buckets of "
          + bucketBits + " bits: it must be at least " + (bucketBits + PADDING));
    }
    return shift;
  }

  /** Bytes of serialized table data held by segment {@code s} (without padding). */
  public int segmentDataLength(int s) {
    long first = (long) s << segmentShift;
    long buckets = Math.min(1L << segmentShift, bucketCount - first);
    return (int) ((buckets * bucketBits + 7) >>> 3);
  }

  /** Segment data lengths a table of this shape would have, without allocating it. */
  public static long[] segmentDataLengths(long bucketCount, int bucketBits, int maxSegmentBytes) {
    int shift = segmentShift(bucketCount, bucketBits, maxSegmentBytes);
    long perSegment = 1L << shift;
    long count = (bucketCount + perSegment - 1) >>> shift;
    if (count > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("too many segments: " + count);
    }
    long[] lengths = new long[(int) count];
    for (int s = 0; s < count; s++) {
      long buckets = Math.min(perSegment, bucketCount - ((long) s << shift));
      lengths[s] = (buckets * bucketBits + 7) >>> 3;
    }
    return lengths;
  }

  /** Serialized size of a table: {@code ceil(bucketCount * bucketBits / 8)} bytes. */
  public static long tableBytes(long bucketCount, int bucketBits) {
    return Math.addExact(Math.multiplyExact(bucketCount, (long) bucketBits), 7L) >>> 3;
  }

  public long bucketCount() {
    return bucketCount;
  }

  public int bucketBits() {
    return (int) bucketBits;
  }

  public int segmentCount() {
    return segments.length;
  }

  /** The only segment's array when the table is not segmented, else null (for hot paths). */
  public byte[] singleSegment() {
    return single;
  }

  /** Reads 64 bits at byte {@code index} of {@code array}, little-endian (an unaligned load). */
  public static long readLong(byte[] array, int index) {
    return (long) LONG_LE.get(array, index);
  }

  /** Writes 64 bits at byte {@code index} of {@code array}, little-endian (an unaligned store). */
  public static void writeLong(byte[] array, int index, long value) {
    LONG_LE.set(array, index, value);
  }

  /** The backing array of segment {@code s} (data followed by padding). Exposed for the format. */
  public byte[] segment(int s) {
    return segments[s];
  }

  public long tableBytes() {
    return tableBytes(bucketCount, (int) bucketBits);
  }

  /**
   * Reads 64 bits starting at bit {@code bit} of bucket {@code bucket}; the low
   * {@value #MAX_WINDOW_BITS} bits are valid (higher bits may belong to the following bucket).
   */
  public long window(long bucket, int bit) {
    byte[] a = single != null ? single : segments[(int) (bucket >>> segmentShift)];
    long pos = bitPosition(bucket, bit);
    return (long) LONG_LE.get(a, (int) (pos >>> 3)) >>> (pos & 7);
  }

  /** Position of bit {@code bit} of {@code bucket} within its segment's array. */
  private long bitPosition(long bucket, int bit) {
    return (single != null ? bucket : bucket & segmentMask) * bucketBits + bit;
  }

  /** Writes the low {@code width} (at most {@value #MAX_WINDOW_BITS}) bits of {@code value}. */
  public void write(long bucket, int bit, int width, long value) {
    byte[] a = single != null ? single : segments[(int) (bucket >>> segmentShift)];
    long pos = bitPosition(bucket, bit);
    int index = (int) (pos >>> 3);
    int shift = (int) (pos & 7);
    long mask = ((1L << width) - 1) << shift;
    long word = (long) LONG_LE.get(a, index);
    LONG_LE.set(a, index, (word & ~mask) | ((value << shift) & mask));
  }

  /** A deep copy (used to make merges all-or-nothing). */
  public BucketStorage copy() {
    byte[][] copies = new byte[segments.length][];
    for (int s = 0; s < segments.length; s++) {
      copies[s] = segments[s].clone();
    }
    return new BucketStorage(this, copies);
  }

  /** Overwrites this table's bits with those of {@code other}, which must have the same shape. */
  public void copyFrom(BucketStorage other) {
    if (other.bucketCount != bucketCount || other.bucketBits != bucketBits || other.segmentShift != segmentShift) {
      throw new IllegalArgumentException("table shapes differ");
    }
    for (int s = 0; s < segments.length; s++) {
      System.arraycopy(other.segments[s], 0, segments[s], 0, segments[s].length);
    }
  }

  /** Sets every bit to zero (an empty table). */
  public void clear() {
    for (byte[] segment : segments) {
      Arrays.fill(segment, (byte) 0);
    }
  }

  /** True when both tables hold the same bits (segmentation may differ). */
  public boolean sameBits(BucketStorage other) {
    if (other.bucketCount != bucketCount || other.bucketBits != bucketBits) {
      return false;
    }
    if (other.segmentShift == segmentShift) {
      for (int s = 0; s < segments.length; s++) {
        if (!Arrays.equals(segments[s], 0, segmentDataLength(s), other.segments[s], 0, segmentDataLength(s))) {
          return false;
        }
      }
      return true;
    }
    int step = (int) bucketBits;
    for (long b = 0; b < bucketCount; b++) {
      for (int bit = 0; bit < step; bit += 32) {
        int width = Math.min(32, step - bit);
        long mask = (1L << width) - 1;
        if ((window(b, bit) & mask) != (other.window(b, bit) & mask)) {
          return false;
        }
      }
    }
    return true;
  }
}
