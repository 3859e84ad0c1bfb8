package dev.cuckoofilter.core.format;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoofilter.core.CorruptFilterException;
import dev.cuckoofilter.core.CuckooFilter;
import dev.cuckoofilter.core.FilterFormatException;
import dev.cuckoofilter.core.UnsupportedFormatVersionException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class FormatTest {
  static List<CuckooFilter> variants() {
    List<CuckooFilter> list = new ArrayList<>();
    SplittableRandom r = new SplittableRandom(5);
    int[][] shapes = {{2, 4}, {2, 13}, {4, 8}, {4, 12}, {4, 17}, {4, 32}, {8, 7}, {8, 12}, {8, 32}};
    for (int[] s : shapes) {
      list.add(fill(CuckooFilter.builder().bucketSize(s[0]).fingerprintBits(s[1]).bucketCount(38).seed(r.nextLong())
          .build(), 0.9, r));
    }
    for (int f : new int[] {4, 5, 9, 13, 16, 21, 32}) {
      list.add(fill(CuckooFilter.builder().semiSorted(true).fingerprintBits(f).bucketCount(26).seed(r.nextLong())
          .build(), 0.9, r));
    }
    list.add(CuckooFilter.builder().bucketCount(2).build()); // empty
    list.add(withStash(false, r));
    list.add(withStash(true, r));
    return list;
  }

  static CuckooFilter fill(CuckooFilter filter, double load, SplittableRandom r) {
    while (filter.loadFactor() < load) {
      filter.add(r.nextLong());
    }
    return filter;
  }

  static CuckooFilter withStash(boolean semiSorted, SplittableRandom r) {
    CuckooFilter filter = CuckooFilter.builder().semiSorted(semiSorted).fingerprintBits(10).bucketCount(12)
        .stashCapacity(3).maxKicks(5).seed(r.nextLong()).build();
    while (filter.stashSize() < 3) {
      filter.add(r.nextLong());
    }
    return filter;
  }

  @ParameterizedTest
  @MethodSource("variants")
  void roundTripsAreByteIdentical(CuckooFilter filter) throws IOException {
    byte[] bytes = filter.toByteArray();
    assertEquals(filter.serializedSize(), bytes.length);
    ByteArrayOutputStream streamed = new ByteArrayOutputStream();
    filter.writeTo(streamed);
    assertArrayEquals(bytes, streamed.toByteArray(), "writeTo and toByteArray agree");

    CuckooFilter fromArray = CuckooFilter.fromByteArray(bytes);
    CuckooFilter fromStream = CuckooFilter.readFrom(new ByteArrayInputStream(bytes));
    CuckooFilter fromSized = CuckooFilter.readFrom(new ByteArrayInputStream(bytes), bytes.length);
    for (CuckooFilter copy : List.of(fromArray, fromStream, fromSized)) {
      assertEquals(filter, copy);
      assertArrayEquals(bytes, copy.toByteArray());
      assertEquals(filter.size(), copy.size());
      assertEquals(filter.stashSize(), copy.stashSize());
      assertEquals(filter.parameters(), copy.parameters());
    }
  }

  @Test
  void readFromConsumesExactlyTheFiltersBytes() throws IOException {
    SplittableRandom r = new SplittableRandom(1);
    CuckooFilter a = fill(CuckooFilter.create(500, 0.01), 0.5, r);
    CuckooFilter b = fill(CuckooFilter.builder().semiSorted(true).expectedItems(300).build(), 0.7, r);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    a.writeTo(out);
    b.writeTo(out);
    out.write(new byte[] {1, 2, 3});
    InputStream in = new ByteArrayInputStream(out.toByteArray());
    assertEquals(a, CuckooFilter.readFrom(in));
    assertEquals(b, CuckooFilter.readFrom(in));
    assertEquals(1, in.read());
  }

  /** The variants of at most 180 bytes: packed, semi-sorted (f = 4, 5), empty, and both with a stash. */
  static Stream<CuckooFilter> smallVariants() {
    return variants().stream().filter(f -> f.serializedSize() <= 180);
  }

  @ParameterizedTest
  @MethodSource("smallVariants")
  void everySingleByteCorruptionIsRejected(CuckooFilter filter) throws IOException {
    byte[] corrupt = filter.toByteArray();
    for (int i = 0; i < corrupt.length; i++) {
      byte original = corrupt[i];
      for (int v = 0; v < 256; v++) {
        if ((byte) v == original) {
          continue;
        }
        corrupt[i] = (byte) v;
        int position = i;
        int value = v;
        // Only the version field may say "newer version"; anything else is corrupt (CRC32C catches
        // every error confined to one byte, so no value at any position can pass).
        int version = (corrupt[4] & 0xFF) | (corrupt[5] & 0xFF) << 8;
        Class<?> expected = (i == 4 || i == 5) && version > FilterFormat.VERSION
            ? UnsupportedFormatVersionException.class : CorruptFilterException.class;
        FilterFormatException e = assertThrows(FilterFormatException.class, () -> CuckooFilter.fromByteArray(corrupt),
            () -> "byte " + position + " set to " + value + " accepted");
        assertEquals(expected, e.getClass(), () -> "byte " + position + " set to " + value + ": " + e.getMessage());
      }
      corrupt[i] = original;
    }
    assertArrayEquals(filter.toByteArray(), corrupt, "the test restored every byte");
    assertEquals(filter, CuckooFilter.fromByteArray(corrupt));
  }

  /** Every variant (small or not) and both readers, with four values per byte: all 255 would take a minute here. */
  @ParameterizedTest
  @MethodSource("variants")
  void singleByteCorruptionsOfEveryVariantAreRejectedByBothReaders(CuckooFilter filter) {
    byte[] bytes = filter.toByteArray();
    for (int i = 0; i < bytes.length; i++) {
      for (int mask : new int[] {0x01, 0x10, 0x80, 0xFF}) {
        byte[] corrupt = bytes.clone();
        corrupt[i] ^= (byte) mask;
        int position = i;
        assertThrows(FilterFormatException.class, () -> CuckooFilter.fromByteArray(corrupt),
            () -> "corruption at byte " + position + " accepted");
        assertThrows(FilterFormatException.class, () -> CuckooFilter.readFrom(new ByteArrayInputStream(corrupt)),
            () -> "corruption at byte " + position + " accepted by the stream reader");
      }
    }
  }

  @ParameterizedTest
  @MethodSource("variants")
  void everyTruncationIsRejected(CuckooFilter filter) {
    byte[] bytes = filter.toByteArray();
    for (int n = 0; n < bytes.length; n++) {
      byte[] truncated = java.util.Arrays.copyOf(bytes, n);
      int length = n;
      FilterFormatException e = assertThrows(FilterFormatException.class, () -> CuckooFilter.fromByteArray(truncated),
          () -> "truncation to " + length + " bytes accepted");
      assertThrows(FilterFormatException.class, () -> CuckooFilter.readFrom(new ByteArrayInputStream(truncated)),
          () -> "truncation to " + length + " bytes accepted by the stream reader");
      if (n >= 4) {
        assertTrue(e.getMessage().contains("truncated"), e.getMessage());
      }
    }
  }

  @Test
  void trailingBytesAreRejectedWhenTheLengthIsKnown() {
    byte[] bytes = CuckooFilter.create(100, 0.01).toByteArray();
    byte[] longer = java.util.Arrays.copyOf(bytes, bytes.length + 1);
    CorruptFilterException e = assertThrows(CorruptFilterException.class, () -> CuckooFilter.fromByteArray(longer));
    assertTrue(e.getMessage().contains("trailing"), e.getMessage());
  }

  @Test
  void readFromWithALengthReadsNoFurtherAndRefusesNegativeLengths() throws IOException {
    CuckooFilter filter = fill(CuckooFilter.create(100, 0.01), 0.5, new SplittableRandom(3));
    byte[] bytes = filter.toByteArray();
    byte[] withNext = java.util.Arrays.copyOf(bytes, bytes.length + 5);
    // A negative length used to be taken as "unknown" and the length check skipped.
    for (long length : new long[] {-1, -7, Long.MIN_VALUE}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> CuckooFilter.readFrom(new ByteArrayInputStream(withNext), length));
      assertTrue(e.getMessage().contains("length"), e.getMessage());
    }
    // A length shorter than the header: the reader stops there instead of consuming the 80-byte header.
    for (int length : new int[] {0, 3, 10, 79}) {
      InputStream in = new ByteArrayInputStream(withNext);
      CorruptFilterException e = assertThrows(CorruptFilterException.class, () -> CuckooFilter.readFrom(in, length));
      assertTrue(e.getMessage().contains("truncated"), e.getMessage());
      assertEquals(withNext.length - length, in.available(), "bytes consumed beyond the length given");
    }
    InputStream in = new ByteArrayInputStream(withNext);
    assertEquals(filter, CuckooFilter.readFrom(in, bytes.length));
    assertEquals(5, in.available());
  }

  /** Rewrites header fields and fixes the header checksum: what a hostile or buggy writer produces. */
  static byte[] withHeader(byte[] bytes, java.util.function.Consumer<ByteBuffer> edit) {
    byte[] copy = bytes.clone();
    ByteBuffer h = ByteBuffer.wrap(copy).order(ByteOrder.LITTLE_ENDIAN);
    edit.accept(h);
    CRC32C crc = new CRC32C();
    crc.update(copy, 0, 76);
    h.putInt(76, (int) crc.getValue());
    return copy;
  }

  static String rejection(byte[] bytes) {
    return assertThrows(FilterFormatException.class, () -> CuckooFilter.fromByteArray(bytes)).getMessage();
  }

  @Test
  void eachInvalidFieldIsNamed() {
    byte[] good = fill(CuckooFilter.builder().fingerprintBits(12).bucketCount(40).build(), 0.5,
        new SplittableRandom(2)).toByteArray();
    assertTrue(rejection(withHeader(good, h -> h.put(0, (byte) 'X'))).contains("magic"));
    assertTrue(rejection(withHeader(good, h -> h.put(6, (byte) 2))).contains("variant"));
    assertTrue(rejection(withHeader(good, h -> h.put(7, (byte) 3))).contains("bucket size"));
    assertTrue(rejection(withHeader(good, h -> {
      h.put(6, (byte) 1);
      h.put(7, (byte) 8);
    })).contains("semi-sorted"));
    assertTrue(rejection(withHeader(good, h -> h.put(8, (byte) 33))).contains("fingerprint width"));
    assertTrue(rejection(withHeader(good, h -> h.put(8, (byte) 3))).contains("fingerprint width"));
    assertTrue(rejection(withHeader(good, h -> h.put(9, (byte) 7))).contains("hash algorithm"));
    assertTrue(rejection(withHeader(good, h -> h.put(10, (byte) 65))).contains("stash capacity"));
    assertTrue(rejection(withHeader(good, h -> h.put(11, (byte) 9))).contains("stash count"));
    assertTrue(rejection(withHeader(good, h -> h.putInt(12, -1))).contains("max kicks"));
    assertTrue(rejection(withHeader(good, h -> h.putLong(16, 41))).contains("bucket count"));
    assertTrue(rejection(withHeader(good, h -> h.putLong(16, 0))).contains("bucket count"));
    assertTrue(rejection(withHeader(good, h -> h.putLong(16, 1L << 33))).contains("bucket count"));
    assertTrue(rejection(withHeader(good, h -> h.putLong(32, 1000))).contains("item count"));
    assertTrue(rejection(withHeader(good, h -> h.putLong(32, 3))).contains("does not match the content"));
    assertTrue(rejection(withHeader(good, h -> h.putLong(40, -5))).contains("failed-insert"));
    assertTrue(rejection(withHeader(good, h -> h.putLong(48, -5))).contains("expected item"));
    assertTrue(rejection(withHeader(good, h -> h.putDouble(56, Double.NaN))).contains("target fpp"));
    assertTrue(rejection(withHeader(good, h -> h.putLong(64, 7))).contains("table length"));
    assertTrue(rejection(withHeader(good, h -> h.putInt(72, 1))).contains("reserved"));
    byte[] badCrc = good.clone();
    badCrc[76] ^= 1;
    assertTrue(rejection(badCrc).contains("header checksum"));
    byte[] badBody = good.clone();
    badBody[100] ^= 1;
    assertTrue(rejection(badBody).contains("table checksum"));
  }

  @Test
  void newerVersionsAreReportedAsUnsupported() {
    byte[] good = CuckooFilter.create(10, 0.01).toByteArray();
    byte[] v2 = withHeader(good, h -> h.putShort(4, (short) 2));
    UnsupportedFormatVersionException e = assertThrows(UnsupportedFormatVersionException.class,
        () -> CuckooFilter.fromByteArray(v2));
    assertEquals(2, e.version());
    assertTrue(rejection(withHeader(good, h -> h.putShort(4, (short) 0))).contains("version"));
  }

  @Test
  void aHostileHeaderDeclaringAHugeTableFailsWithoutAllocatingIt() {
    byte[] good = CuckooFilter.create(10, 0.01).toByteArray();
    // 2^32 buckets of 8 x 32 bits: a 128 GiB table, consistent and checksummed header, no data.
    byte[] hostile = withHeader(good, h -> {
      h.put(7, (byte) 8);
      h.put(8, (byte) 32);
      h.putLong(16, 1L << 32);
      h.putLong(32, 0);
      h.putLong(64, (1L << 32) * 256 / 8);
    });
    String sized = rejection(hostile);
    assertTrue(sized.contains("truncated"), sized);
    AllocationCounter.assertMeasurable();
    long before = AllocationCounter.allocated();
    FilterFormatException e = assertThrows(FilterFormatException.class,
        () -> CuckooFilter.readFrom(new ByteArrayInputStream(hostile)));
    long bytes = AllocationCounter.allocated() - before;
    assertTrue(e.getMessage().contains("truncated"), e.getMessage());
    assertTrue(bytes < 1 << 20, "allocated " + bytes + " bytes for a " + hostile.length + "-byte input");
  }

  @Test
  void corruptSemiSortedContentWithValidChecksumsIsRejected() {
    CuckooFilter filter = fill(CuckooFilter.builder().semiSorted(true).fingerprintBits(9).bucketCount(20).build(), 0.6,
        new SplittableRandom(4));
    byte[] bytes = filter.toByteArray();
    // Bucket 0's 12-bit code set to 4095 (> 3875), with both checksums recomputed.
    byte[] bad = bytes.clone();
    bad[80] = (byte) 0xFF;
    bad[81] = (byte) (bad[81] | 0x0F);
    fixBodyCrc(bad);
    assertTrue(rejection(bad).contains("code"), rejection(bad));
  }

  static void fixBodyCrc(byte[] bytes) {
    CRC32C crc = new CRC32C();
    crc.update(bytes, 80, bytes.length - 84);
    ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putInt(bytes.length - 4, (int) crc.getValue());
  }
}
