package dev.cuckoofilter.spark.store;

import dev.cuckoofilter.core.format.FilterFormat;
import java.io.FilterInputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * Picks the two CRC32C fields out of a serialized filter as it streams by (header CRC at bytes 76..79,
 * body CRC in the last 4 bytes, docs/FORMAT.md), so that commit records can pin a data file's content
 * without a second pass over it.
 */
final class FormatChecksums {
  private static final int HEADER_CRC_OFFSET = FilterFormat.HEADER_BYTES - 4;

  private final long length;
  private final byte[] header = new byte[4];
  private final byte[] body = new byte[4];
  private long position;

  /** @param length the total length of the serialized filter */
  FormatChecksums(long length) {
    this.length = length;
  }

  /** Bytes seen so far. */
  long position() {
    return position;
  }

  /** The header CRC as an unsigned value. */
  long headerCrc32c() {
    return littleEndian(header);
  }

  /** The body CRC as an unsigned value. */
  long bodyCrc32c() {
    return littleEndian(body);
  }

  void observe(byte[] b, int off, int len) {
    copyOverlap(b, off, len, HEADER_CRC_OFFSET, header);
    copyOverlap(b, off, len, length - 4, body);
    position += len;
  }

  void observe(int b) {
    long h = position - HEADER_CRC_OFFSET;
    if (h >= 0 && h < 4) {
      header[(int) h] = (byte) b;
    }
    long t = position - (length - 4);
    if (t >= 0 && t < 4) {
      body[(int) t] = (byte) b;
    }
    position++;
  }

  private void copyOverlap(byte[] b, int off, int len, long fieldStart, byte[] field) {
    long from = Math.max(position, fieldStart);
    long to = Math.min(position + len, fieldStart + 4);
    for (long p = from; p < to; p++) {
      field[(int) (p - fieldStart)] = b[off + (int) (p - position)];
    }
  }

  private static long littleEndian(byte[] b) {
    return (b[0] & 0xFFL) | (b[1] & 0xFFL) << 8 | (b[2] & 0xFFL) << 16 | (b[3] & 0xFFL) << 24;
  }

  /** An output stream that feeds everything written through it to {@code checksums}. */
  static OutputStream observing(OutputStream out, FormatChecksums checksums) {
    return new FilterOutputStream(out) {
      @Override
      public void write(int b) throws IOException {
        out.write(b);
        checksums.observe(b);
      }

      @Override
      public void write(byte[] b, int off, int len) throws IOException {
        out.write(b, off, len);
        checksums.observe(b, off, len);
      }

      @Override
      public void close() {
        // the caller closes the underlying stream itself
      }
    };
  }

  /** An input stream that feeds everything read through it to {@code checksums}. */
  static InputStream observing(InputStream in, FormatChecksums checksums) {
    return new FilterInputStream(in) {
      @Override
      public int read() throws IOException {
        int b = in.read();
        if (b >= 0) {
          checksums.observe(b);
        }
        return b;
      }

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        int n = in.read(b, off, len);
        if (n > 0) {
          checksums.observe(b, off, n);
        }
        return n;
      }

      @Override
      public long skip(long n) {
        throw new UnsupportedOperationException("the filter reader does not skip");
      }
    };
  }
}
