package dev.cuckoofilter.core.hash;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * XXH64 (Yann Collet's xxHash, 64-bit variant), implemented from the published specification
 * ({@code doc/xxhash_spec.md} in the xxHash repository). Input bytes are read little-endian on every
 * platform, so results are identical on any JVM and match the reference C implementation and
 * Spark's {@code org.apache.spark.sql.catalyst.expressions.XXH64}.
 *
 * <p>Besides plain byte ranges this class hashes the UTF-8 encoding of a {@link CharSequence} without
 * materializing the bytes, so hashing a {@code String} key allocates nothing.
 */
public final class XxHash64 {
  static final long P1 = 0x9E3779B185EBCA87L;
  static final long P2 = 0xC2B2AE3D27D4EB4FL;
  static final long P3 = 0x165667B19E3779F9L;
  static final long P4 = 0x85EBCA77C2B2AE63L;
  static final long P5 = 0x27D4EB2F165667C5L;

  private static final VarHandle LONG_LE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle INT_LE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

  private XxHash64() {}

  /** XXH64 of {@code bytes[offset, offset + length)} with the given seed. */
  public static long hash(byte[] bytes, int offset, int length, long seed) {
    java.util.Objects.checkFromIndexSize(offset, length, bytes.length);
    int end = offset + length;
    int p = offset;
    long h;
    if (length >= 32) {
      long v1 = seed + P1 + P2;
      long v2 = seed + P2;
      long v3 = seed;
      long v4 = seed - P1;
      int limit = end - 32;
      do {
        v1 = round(v1, readLong(bytes, p));
        v2 = round(v2, readLong(bytes, p + 8));
        v3 = round(v3, readLong(bytes, p + 16));
        v4 = round(v4, readLong(bytes, p + 24));
        p += 32;
      } while (p <= limit);
      h = mergeStripes(v1, v2, v3, v4);
    } else {
      h = seed + P5;
    }
    h += length;
    while (p + 8 <= end) {
      h = mixLane(h, readLong(bytes, p));
      p += 8;
    }
    if (p + 4 <= end) {
      h = mixWord(h, readInt(bytes, p) & 0xFFFFFFFFL);
      p += 4;
    }
    while (p < end) {
      h = mixByte(h, bytes[p] & 0xFF);
      p++;
    }
    return avalanche(h);
  }

  /** XXH64 of all of {@code bytes}. */
  public static long hash(byte[] bytes, long seed) {
    return hash(bytes, 0, bytes.length, seed);
  }

  /**
   * XXH64 of the UTF-8 encoding of {@code s}, identical to {@code hash(s.toString().getBytes(UTF_8),
   * seed)}, including the JDK's replacement of unpaired surrogates by {@code '?'}; allocates nothing.
   */
  public static long hashUtf8(CharSequence s, long seed) {
    long length = utf8Length(s);
    Utf8Stream in = new Utf8Stream(s);
    long h;
    long remaining = length;
    if (length >= 32) {
      long v1 = seed + P1 + P2;
      long v2 = seed + P2;
      long v3 = seed;
      long v4 = seed - P1;
      do {
        v1 = round(v1, in.nextBytes(8));
        v2 = round(v2, in.nextBytes(8));
        v3 = round(v3, in.nextBytes(8));
        v4 = round(v4, in.nextBytes(8));
        remaining -= 32;
      } while (remaining >= 32);
      h = mergeStripes(v1, v2, v3, v4);
    } else {
      h = seed + P5;
    }
    h += length;
    while (remaining >= 8) {
      h = mixLane(h, in.nextBytes(8));
      remaining -= 8;
    }
    if (remaining >= 4) {
      h = mixWord(h, in.nextBytes(4));
      remaining -= 4;
    }
    while (remaining > 0) {
      h = mixByte(h, (int) in.nextBytes(1));
      remaining--;
    }
    return avalanche(h);
  }

  /** Number of bytes in the UTF-8 encoding of {@code s} (unpaired surrogates count as one byte). */
  public static long utf8Length(CharSequence s) {
    long n = 0;
    int len = s.length();
    for (int i = 0; i < len; i++) {
      char c = s.charAt(i);
      if (c < 0x80) {
        n += 1;
      } else if (c < 0x800) {
        n += 2;
      } else if (Character.isHighSurrogate(c) && i + 1 < len && Character.isLowSurrogate(s.charAt(i + 1))) {
        n += 4;
        i++;
      } else if (Character.isSurrogate(c)) {
        n += 1; // replaced by '?'
      } else {
        n += 3;
      }
    }
    return n;
  }

  /**
   * Produces the UTF-8 bytes of a char sequence a few at a time, packed little-endian into a long.
   * A tiny value object on the caller's stack frame: escape analysis removes the allocation.
   */
  private static final class Utf8Stream {
    private final CharSequence s;
    private int index;
    private long pending; // up to 4 encoded bytes not yet consumed, little-endian
    private int pendingCount;

    Utf8Stream(CharSequence s) {
      this.s = s;
    }

    long nextBytes(int count) {
      long out = 0;
      for (int i = 0; i < count; i++) {
        if (pendingCount == 0) {
          encodeNext();
        }
        out |= (pending & 0xFF) << (8 * i);
        pending >>>= 8;
        pendingCount--;
      }
      return out;
    }

    private void encodeNext() {
      char c = s.charAt(index++);
      if (c < 0x80) {
        pending = c;
        pendingCount = 1;
      } else if (c < 0x800) {
        pending = (0xC0 | (c >>> 6)) | ((long) (0x80 | (c & 0x3F)) << 8);
        pendingCount = 2;
      } else if (Character.isHighSurrogate(c) && index < s.length() && Character.isLowSurrogate(s.charAt(index))) {
        int cp = Character.toCodePoint(c, s.charAt(index++));
        pending = (0xF0 | (cp >>> 18))
            | ((long) (0x80 | ((cp >>> 12) & 0x3F)) << 8)
            | ((long) (0x80 | ((cp >>> 6) & 0x3F)) << 16)
            | ((long) (0x80 | (cp & 0x3F)) << 24);
        pendingCount = 4;
      } else if (Character.isSurrogate(c)) {
        pending = '?';
        pendingCount = 1;
      } else {
        pending = (0xE0 | (c >>> 12)) | ((long) (0x80 | ((c >>> 6) & 0x3F)) << 8) | ((long) (0x80 | (c & 0x3F)) << 16);
        pendingCount = 3;
      }
    }
  }

  private static long round(long acc, long lane) {
    acc += lane * P2;
    acc = Long.rotateLeft(acc, 31);
    return acc * P1;
  }

  private static long mergeRound(long acc, long v) {
    acc ^= round(0, v);
    return acc * P1 + P4;
  }

  private static long mergeStripes(long v1, long v2, long v3, long v4) {
    long h = Long.rotateLeft(v1, 1) + Long.rotateLeft(v2, 7) + Long.rotateLeft(v3, 12) + Long.rotateLeft(v4, 18);
    h = mergeRound(h, v1);
    h = mergeRound(h, v2);
    h = mergeRound(h, v3);
    return mergeRound(h, v4);
  }

  private static long mixLane(long h, long lane) {
    h ^= round(0, lane);
    return Long.rotateLeft(h, 27) * P1 + P4;
  }

  private static long mixWord(long h, long word) {
    h ^= word * P1;
    return Long.rotateLeft(h, 23) * P2 + P3;
  }

  private static long mixByte(long h, int b) {
    h ^= b * P5;
    return Long.rotateLeft(h, 11) * P1;
  }

  private static long avalanche(long h) {
    h ^= h >>> 33;
    h *= P2;
    h ^= h >>> 29;
    h *= P3;
    h ^= h >>> 32;
    return h;
  }

  private static long readLong(byte[] b, int p) {
    return (long) LONG_LE.get(b, p);
  }

  private static int readInt(byte[] b, int p) {
    return (int) INT_LE.get(b, p);
  }
}
