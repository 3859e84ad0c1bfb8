package dev.cuckoofilter.core.format;

import dev.cuckoofilter.core.CorruptFilterException;
import dev.cuckoofilter.core.FilterFormatException;
import dev.cuckoofilter.core.FilterParameters;
import dev.cuckoofilter.core.UnsupportedFormatVersionException;
import dev.cuckoofilter.core.hash.Addressing;
import dev.cuckoofilter.core.hash.CuckooHash;
import dev.cuckoofilter.core.sizing.Sizing;
import dev.cuckoofilter.core.table.BucketStorage;
import dev.cuckoofilter.core.table.BucketTable;
import dev.cuckoofilter.core.table.Stash;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Reads and writes the cuckoo filter binary format, version 1, specified byte by byte in
 * {@code docs/FORMAT.md}. All integers are little-endian.
 *
 * <pre>
 * offset size field
 *   0     4   magic "CKOO" (43 4B 4F 4F)
 *   4     2   format version (1)
 *   6     1   variant: 0 packed, 1 semi-sorted
 *   7     1   bucket size b (2, 4, 8)
 *   8     1   fingerprint bits f (4..32)
 *   9     1   hash algorithm (1)
 *  10     1   stash capacity (0..64)
 *  11     1   stash count
 *  12     4   max kicks
 *  16     8   bucket count m (even, 2..2^32)
 *  24     8   seed
 *  32     8   item count
 *  40     8   failed inserts
 *  48     8   expected items (informational)
 *  56     8   target fpp, IEEE 754 binary64 (informational)
 *  64     8   table length in bytes = ceil(m * bucketBits / 8)
 *  72     4   reserved, zero
 *  76     4   CRC32C of bytes 0..75
 *  80   12*s  stash entries: bucket (8), fingerprint (4)
 *   .     t   table
 *   .     4   CRC32C of the stash entries and the table
 * </pre>
 *
 * <p>The reader validates everything before it returns: a damaged, truncated or hostile stream gives a
 * {@link FilterFormatException} naming the problem, never a filter. Memory is allocated only as bytes
 * actually arrive (at most about twice the bytes read), so a header declaring a huge table cannot make
 * the reader allocate it.
 */
public final class FilterFormat {
  public static final int VERSION = 1;
  public static final int HEADER_BYTES = 80;
  public static final int STASH_ENTRY_BYTES = 12;
  public static final int TRAILER_BYTES = 4;
  public static final int MAX_KICKS = 1 << 20;
  static final byte[] MAGIC = {0x43, 0x4B, 0x4F, 0x4F};

  /** Size of the first chunk used to receive table bytes from a stream of unknown length. */
  private static final int FIRST_CHUNK = 4096;
  private static final int MAX_CHUNK = 1 << 24;

  private FilterFormat() {}

  /** Total serialized size of a filter. */
  public static long serializedSize(FilterParameters p, int stashCount) {
    return HEADER_BYTES + (long) STASH_ENTRY_BYTES * stashCount + BucketStorage.tableBytes(p.bucketCount(), p.bucketBits())
        + TRAILER_BYTES;
  }

  // ---------------------------------------------------------------- writing

  /** Writes {@code image} to {@code out} (not closed), streaming the table segment by segment. */
  public static void write(FilterImage image, OutputStream out) throws IOException {
    FilterParameters p = image.parameters();
    Stash stash = image.stash();
    BucketStorage storage = image.storage();
    ByteBuffer header = ByteBuffer.allocate(HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    header.put(MAGIC);
    header.putShort((short) VERSION);
    header.put((byte) (p.semiSorted() ? 1 : 0));
    header.put((byte) p.bucketSize());
    header.put((byte) p.fingerprintBits());
    header.put((byte) p.hashAlgorithm());
    header.put((byte) p.stashCapacity());
    header.put((byte) stash.size());
    header.putInt(p.maxKicks());
    header.putLong(p.bucketCount());
    header.putLong(p.seed());
    header.putLong(image.itemCount());
    header.putLong(image.failedInserts());
    header.putLong(p.expectedItems());
    header.putDouble(p.targetFpp());
    header.putLong(storage.tableBytes());
    header.putInt(0);
    CRC32C headerCrc = new CRC32C();
    headerCrc.update(header.array(), 0, HEADER_BYTES - 4);
    header.putInt((int) headerCrc.getValue());
    out.write(header.array());

    CRC32C bodyCrc = new CRC32C();
    if (stash.size() > 0) {
      ByteBuffer entries = ByteBuffer.allocate(STASH_ENTRY_BYTES * stash.size()).order(ByteOrder.LITTLE_ENDIAN);
      for (int i = 0; i < stash.size(); i++) {
        entries.putLong(stash.bucket(i));
        entries.putInt((int) stash.fingerprint(i));
      }
      bodyCrc.update(entries.array());
      out.write(entries.array());
    }
    for (int s = 0; s < storage.segmentCount(); s++) {
      byte[] segment = storage.segment(s);
      int length = storage.segmentDataLength(s);
      bodyCrc.update(segment, 0, length);
      out.write(segment, 0, length);
    }
    ByteBuffer trailer = ByteBuffer.allocate(TRAILER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    trailer.putInt((int) bodyCrc.getValue());
    out.write(trailer.array());
  }

  // ---------------------------------------------------------------- reading

  /**
   * Reads one filter from {@code in}, consuming exactly its bytes.
   *
   * @param availableBytes how many bytes the stream holds from here, or -1 if unknown; when known, a
   *     header declaring more is rejected before anything is allocated
   * @param exact          when true, {@code availableBytes} must equal the filter's size (no trailing bytes)
   */
  public static FilterImage read(InputStream in, long availableBytes, boolean exact, int maxSegmentBytes)
      throws IOException {
    byte[] headerBytes = new byte[HEADER_BYTES];
    // Never read past the bytes the caller says the stream holds, even for a short header.
    int wanted = availableBytes >= 0 ? (int) Math.min(HEADER_BYTES, availableBytes) : HEADER_BYTES;
    int got = readFully(in, headerBytes, 0, wanted);
    if (got < 4) {
      throw new CorruptFilterException("truncated: a filter starts with a " + HEADER_BYTES + "-byte header, got "
          + got + " bytes");
    }
    for (int i = 0; i < 4; i++) {
      if (headerBytes[i] != MAGIC[i]) {
        throw new CorruptFilterException(String.format(
            "not a cuckoo filter: magic bytes are %02X %02X %02X %02X, expected 43 4B 4F 4F (\"CKOO\")",
            headerBytes[0], headerBytes[1], headerBytes[2], headerBytes[3]));
      }
    }
    if (got < 6) {
      throw new CorruptFilterException("truncated: header needs " + HEADER_BYTES + " bytes, got " + got);
    }
    ByteBuffer h = ByteBuffer.wrap(headerBytes).order(ByteOrder.LITTLE_ENDIAN);
    int version = h.getShort(4) & 0xFFFF;
    if (version > VERSION) {
      throw new UnsupportedFormatVersionException(version, VERSION);
    }
    if (version != VERSION) {
      throw new CorruptFilterException("invalid format version " + version + ", expected " + VERSION);
    }
    if (got < HEADER_BYTES) {
      throw new CorruptFilterException("truncated: header needs " + HEADER_BYTES + " bytes, got " + got);
    }
    CRC32C headerCrc = new CRC32C();
    headerCrc.update(headerBytes, 0, HEADER_BYTES - 4);
    int storedHeaderCrc = h.getInt(76);
    if ((int) headerCrc.getValue() != storedHeaderCrc) {
      throw new CorruptFilterException(String.format("header checksum mismatch: stored %08X, computed %08X",
          storedHeaderCrc, (int) headerCrc.getValue()));
    }

    int variant = headerBytes[6] & 0xFF;
    int bucketSize = headerBytes[7] & 0xFF;
    int fingerprintBits = headerBytes[8] & 0xFF;
    int hashAlgorithm = headerBytes[9] & 0xFF;
    int stashCapacity = headerBytes[10] & 0xFF;
    int stashCount = headerBytes[11] & 0xFF;
    long maxKicks = h.getInt(12) & 0xFFFFFFFFL;
    long bucketCount = h.getLong(16);
    long seed = h.getLong(24);
    long itemCount = h.getLong(32);
    long failedInserts = h.getLong(40);
    long expectedItems = h.getLong(48);
    double targetFpp = h.getDouble(56);
    long tableBytes = h.getLong(64);
    int reserved = h.getInt(72);

    if (variant > 1) {
      throw new CorruptFilterException("invalid variant " + variant + ", expected 0 (packed) or 1 (semi-sorted)");
    }
    boolean semiSorted = variant == 1;
    if (bucketSize != 2 && bucketSize != 4 && bucketSize != 8) {
      throw new CorruptFilterException("invalid bucket size " + bucketSize + ", expected 2, 4 or 8");
    }
    if (semiSorted && bucketSize != 4) {
      throw new CorruptFilterException("invalid bucket size " + bucketSize + " for a semi-sorted filter, expected 4");
    }
    if (fingerprintBits < 4 || fingerprintBits > 32) {
      throw new CorruptFilterException("invalid fingerprint width " + fingerprintBits + " bits, expected 4 to 32");
    }
    if (hashAlgorithm != CuckooHash.ALGORITHM_ID) {
      throw new CorruptFilterException("unknown hash algorithm " + hashAlgorithm + ", expected "
          + CuckooHash.ALGORITHM_ID);
    }
    if (stashCapacity > Stash.MAX_CAPACITY) {
      throw new CorruptFilterException("invalid stash capacity " + stashCapacity + ", at most " + Stash.MAX_CAPACITY);
    }
    if (stashCount > stashCapacity) {
      throw new CorruptFilterException("stash count " + stashCount + " exceeds the stash capacity " + stashCapacity);
    }
    if (maxKicks > MAX_KICKS) {
      throw new CorruptFilterException("invalid max kicks " + maxKicks + ", at most " + MAX_KICKS);
    }
    if (bucketCount < 2 || bucketCount > Sizing.MAX_BUCKETS || (bucketCount & 1) != 0) {
      throw new CorruptFilterException("invalid bucket count " + bucketCount + ", expected an even number from 2 to "
          + Sizing.MAX_BUCKETS);
    }
    long slots = bucketCount * bucketSize;
    if (itemCount < stashCount || itemCount > slots + stashCount) {
      throw new CorruptFilterException("invalid item count " + itemCount + " for " + slots + " entries and "
          + stashCount + " stashed");
    }
    if (failedInserts < 0) {
      throw new CorruptFilterException("invalid failed-insert count " + failedInserts);
    }
    if (expectedItems < 0) {
      throw new CorruptFilterException("invalid expected item count " + expectedItems);
    }
    if (!(targetFpp >= 0.0 && targetFpp < 1.0)) {
      throw new CorruptFilterException("invalid target fpp " + targetFpp + ", expected a value in [0, 1)");
    }
    int bucketBits = Sizing.bucketBits(semiSorted, bucketSize, fingerprintBits);
    long expectedTableBytes = BucketStorage.tableBytes(bucketCount, bucketBits);
    if (tableBytes != expectedTableBytes) {
      throw new CorruptFilterException("table length " + tableBytes + " does not match the geometry ("
          + bucketCount + " buckets of " + bucketBits + " bits need " + expectedTableBytes + " bytes)");
    }
    if (reserved != 0) {
      throw new CorruptFilterException("reserved header bytes 72..75 are not zero");
    }
    FilterParameters parameters = new FilterParameters(semiSorted, bucketSize, fingerprintBits, bucketCount,
        hashAlgorithm, seed, (int) maxKicks, stashCapacity, expectedItems, targetFpp);
    long total = serializedSize(parameters, stashCount);
    if (availableBytes >= 0) {
      if (total > availableBytes) {
        throw new CorruptFilterException("truncated: the header declares a " + total + "-byte filter but only "
            + availableBytes + " bytes are available");
      }
      if (exact && total != availableBytes) {
        throw new CorruptFilterException("unexpected trailing bytes: the filter is " + total + " bytes, the input "
            + availableBytes);
      }
    }

    CRC32C bodyCrc = new CRC32C();
    Stash stash = new Stash(stashCapacity);
    if (stashCount > 0) {
      byte[] entries = new byte[STASH_ENTRY_BYTES * stashCount];
      if (readFully(in, entries, 0, entries.length) < entries.length) {
        throw new CorruptFilterException("truncated in the stash (" + stashCount + " entries)");
      }
      bodyCrc.update(entries);
      ByteBuffer e = ByteBuffer.wrap(entries).order(ByteOrder.LITTLE_ENDIAN);
      for (int i = 0; i < stashCount; i++) {
        stash.add(e.getLong(), e.getInt() & 0xFFFFFFFFL);
      }
    }

    long[] lengths = BucketStorage.segmentDataLengths(bucketCount, bucketBits, maxSegmentBytes);
    byte[][] segments = new byte[lengths.length][];
    long tableRead = 0;
    for (int s = 0; s < lengths.length; s++) {
      segments[s] = readSegment(in, (int) lengths[s], availableBytes >= 0, tableRead, tableBytes);
      bodyCrc.update(segments[s], 0, (int) lengths[s]);
      tableRead += lengths[s];
    }
    byte[] trailer = new byte[TRAILER_BYTES];
    if (readFully(in, trailer, 0, TRAILER_BYTES) < TRAILER_BYTES) {
      throw new CorruptFilterException("truncated: the checksum after the table is missing");
    }
    int storedBodyCrc = ByteBuffer.wrap(trailer).order(ByteOrder.LITTLE_ENDIAN).getInt();
    if ((int) bodyCrc.getValue() != storedBodyCrc) {
      throw new CorruptFilterException(String.format("table checksum mismatch: stored %08X, computed %08X",
          storedBodyCrc, (int) bodyCrc.getValue()));
    }

    BucketStorage storage = BucketStorage.wrap(bucketCount, bucketBits, maxSegmentBytes, segments);
    validateStructure(parameters, itemCount, stash, storage, lengths);
    return new FilterImage(parameters, itemCount, failedInserts, stash, storage);
  }

  /** Checks what the checksum cannot: that the content is a filter these parameters could produce. */
  private static void validateStructure(FilterParameters p, long itemCount, Stash stash, BucketStorage storage,
      long[] lengths) throws CorruptFilterException {
    int last = lengths.length - 1;
    long usedBits = (p.bucketCount() * p.bucketBits()) & 7;
    if (usedBits != 0) {
      int lastByte = storage.segment(last)[(int) lengths[last] - 1] & 0xFF;
      if ((lastByte >>> usedBits) != 0) {
        throw new CorruptFilterException("padding bits after the last bucket are not zero");
      }
    }
    long fpMax = (1L << p.fingerprintBits()) - 1;
    for (int i = 0; i < stash.size(); i++) {
      long bucket = stash.bucket(i);
      long fp = stash.fingerprint(i);
      if (fp == 0 || fp > fpMax) {
        throw new CorruptFilterException("stash entry " + i + " has fingerprint " + fp + ", outside [1, " + fpMax + "]");
      }
      if (bucket < 0 || bucket >= p.bucketCount()) {
        throw new CorruptFilterException("stash entry " + i + " has bucket " + bucket + ", outside [0, "
            + p.bucketCount() + ")");
      }
      if (Addressing.alternate(bucket, fp, p.bucketCount()) < bucket) {
        throw new CorruptFilterException("stash entry " + i + " does not name the smaller of its two buckets");
      }
    }
    BucketTable table = BucketTable.wrap(p.semiSorted(), storage, p.bucketSize(), p.fingerprintBits());
    if (p.semiSorted()) {
      for (long b = 0; b < p.bucketCount(); b++) {
        String problem = table.validate(b);
        if (problem != null) {
          throw new CorruptFilterException(problem);
        }
      }
    }
    long occupied = table.countOccupied();
    if (occupied + stash.size() != itemCount) {
      throw new CorruptFilterException("item count " + itemCount + " does not match the content: " + occupied
          + " table entries and " + stash.size() + " stashed fingerprints");
    }
  }

  /**
   * Reads one segment's data and returns it in an array with {@link BucketStorage#PADDING} extra bytes.
   * When the stream's length was not verified up front, bytes are received in chunks of growing size
   * so allocation tracks the bytes that actually arrive.
   */
  private static byte[] readSegment(InputStream in, int length, boolean lengthVerified, long tableRead,
      long tableBytes) throws IOException {
    if (lengthVerified) {
      byte[] segment = new byte[length + BucketStorage.PADDING];
      int n = readFully(in, segment, 0, length);
      if (n < length) {
        throw truncatedTable(tableRead + n, tableBytes);
      }
      return segment;
    }
    List<byte[]> chunks = new ArrayList<>();
    int received = 0;
    int chunkSize = FIRST_CHUNK;
    while (received < length) {
      byte[] chunk = new byte[Math.min(chunkSize, length - received)];
      int n = readFully(in, chunk, 0, chunk.length);
      received += n;
      if (n < chunk.length) {
        throw truncatedTable(tableRead + received, tableBytes);
      }
      chunks.add(chunk);
      chunkSize = Math.min(MAX_CHUNK, chunkSize * 2);
    }
    byte[] segment = new byte[length + BucketStorage.PADDING];
    int offset = 0;
    for (byte[] chunk : chunks) {
      System.arraycopy(chunk, 0, segment, offset, chunk.length);
      offset += chunk.length;
    }
    return segment;
  }

  private static CorruptFilterException truncatedTable(long got, long expected) {
    return new CorruptFilterException("truncated in the table: expected " + expected + " bytes, got " + got);
  }

  /** Reads until {@code length} bytes or end of stream; returns the number read. */
  private static int readFully(InputStream in, byte[] b, int offset, int length) throws IOException {
    int total = 0;
    while (total < length) {
      int n = in.read(b, offset + total, length - total);
      if (n < 0) {
        break;
      }
      total += n;
    }
    return total;
  }
}
