package dev.cuckoofilter.core.hash;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class XxHash64Test {
  private static byte[] pattern(int n) {
    byte[] b = new byte[n];
    for (int i = 0; i < n; i++) {
      b[i] = (byte) (i * 31 + 7);
    }
    return b;
  }

  /** Expected values computed with the reference implementation (xxhsum -H1, seed 0). */
  @ParameterizedTest
  @CsvSource({
      "0, ef46db3751d8e999", "1, a96c7f0ce858bbb7", "3, 56e6957632a487f9", "4, c60d15b1e3ff8f04",
      "7, afbefc3d6c6f9a8e", "8, 3da5c7aa269683e0", "9, 4b17a9ba9e215c09", "15, ae2a37eb9357caa7",
      "16, a19ad429b02bc413", "31, 4a74f3a1a39ad4a1", "32, 8d57d6a4671cc43d", "33, 62c9fd21ed857664",
      "63, 5c320a0d2707057f", "64, 7bbabbc45729d17e", "65, f3980c34bae65dc1", "100, efa0ad2d3e70c151",
      "1000, 99594f4828043d35"})
  void matchesReferenceImplementation(int length, String expectedHex) {
    long expected = Long.parseUnsignedLong(expectedHex, 16);
    assertEquals(expected, XxHash64.hash(pattern(length), 0L));
    // The same bytes at an offset inside a larger array.
    byte[] padded = new byte[length + 5];
    System.arraycopy(pattern(length), 0, padded, 3, length);
    assertEquals(expected, XxHash64.hash(padded, 3, length, 0L));
  }

  @ParameterizedTest
  @CsvSource({"abc, 44bc2cf5ad770999", "a, d24ec4f1a98c6e5b", "'héllo wörld ✓ 𝄞', b21827158c9eced1",
      "'🎉emoji and ascii mixed text that is longer than thirty-two bytes ☃', a68d6567a7d715ff"})
  void stringsHashAsTheirUtf8Bytes(String s, String expectedHex) {
    long expected = Long.parseUnsignedLong(expectedHex, 16);
    assertEquals(expected, XxHash64.hash(s.getBytes(StandardCharsets.UTF_8), 0L));
    assertEquals(expected, XxHash64.hashUtf8(s, 0L));
  }

  @Test
  void streamingUtf8EqualsEncodedBytesForRandomStrings() {
    SplittableRandom r = new SplittableRandom(42);
    for (int i = 0; i < 20_000; i++) {
      int len = r.nextInt(0, 90);
      StringBuilder sb = new StringBuilder();
      for (int k = 0; k < len; k++) {
        switch (r.nextInt(6)) {
          case 0 -> sb.append((char) r.nextInt(0x80));
          case 1 -> sb.append((char) r.nextInt(0x80, 0x800));
          case 2 -> sb.append((char) r.nextInt(0x800, 0xD800));
          case 3 -> sb.appendCodePoint(r.nextInt(0x10000, 0x110000));
          case 4 -> sb.append((char) r.nextInt(0xD800, 0xE000)); // unpaired surrogate
          default -> sb.append((char) r.nextInt(0xE000, 0x10000));
        }
      }
      String s = sb.toString();
      long seed = r.nextLong();
      byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
      assertEquals(XxHash64.hash(utf8, seed), XxHash64.hashUtf8(s, seed), () -> "string " + s.codePoints().count());
      assertEquals(utf8.length, XxHash64.utf8Length(s));
    }
  }
}
