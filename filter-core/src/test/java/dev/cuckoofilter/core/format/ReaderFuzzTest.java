package dev.cuckoofilter.core.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.cuckoofilter.core.CuckooFilter;
import dev.cuckoofilter.core.FilterFormatException;
import java.io.ByteArrayInputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A seeded mutation fuzzer for the reader. Starting from valid filters of every variant, it flips bits,
 * overwrites, inserts, deletes and splices bytes, and rewrites header fields with random or extreme
 * values, optionally repairing the checksums so mutations reach the structural checks. For every input
 * the reader must either return a filter (whose re-serialization is then identical to the input) or
 * throw a {@link FilterFormatException}; nothing else, no hang, and no allocation beyond the input's
 * size (twice it from a stream of unknown length) plus a small constant.
 */
class ReaderFuzzTest {
  private static final int ITERATIONS = 30_000;
  /** The reader's first chunk for table bytes from a stream of unknown length (FilterFormat.FIRST_CHUNK). */
  static final int FIRST_CHUNK = 4096;
  /** Allocation of one read besides the table bytes: see {@link #allocationLimit}. */
  static final int FIXED_BYTES = 12 * 1024;
  private static final int[] HEADER_FIELDS = {4, 6, 7, 8, 9, 10, 11, 12, 16, 24, 32, 40, 48, 56, 64, 72};

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void mutatedInputsNeverCrashHangOrOverAllocate() {
    AllocationCounter.assertMeasurable();
    List<byte[]> seeds = FormatTest.variants().stream().map(CuckooFilter::toByteArray).toList();
    SplittableRandom r = new SplittableRandom(20141202);
    // Warm up: class loading, one-time initialization and interpreted code allocate; only steady-state
    // reads are measured. The warm-up goes through the same checks so their classes are loaded too.
    SplittableRandom warmup = new SplittableRandom(1);
    for (int i = 0; i < 2000; i++) {
      byte[] input = mutate(seeds.get(warmup.nextInt(seeds.size())), seeds, warmup);
      read(input, i, true, false);
      read(input, i, false, false);
    }
    int accepted = 0;
    for (int i = 0; i < ITERATIONS; i++) {
      byte[] input = mutate(seeds.get(r.nextInt(seeds.size())), seeds, r);
      if (read(input, i, true, true)) {
        accepted++;
      }
      read(input, i, false, true);
    }
    // Some mutations (informational fields with repaired checksums) are valid filters.
    assertTrue(accepted > 0 && accepted < ITERATIONS / 2, "accepted " + accepted);
  }

  /**
   * Most bytes one read of an {@code inputLength}-byte input may allocate. Table bytes are allocated only
   * as they arrive: once when the length is known, at most twice from a stream of unknown length (chunks
   * of doubling size, the first of up to {@value #FIRST_CHUNK} bytes even if fewer arrive, then the
   * segment they are copied into). The rest is a constant: the 80-byte header, a stash of up to 64
   * entries (about 2 KiB with its entry buffer), checksums and the filter's objects, or for a rejection an
   * exception with its stack trace and formatted message. Measured here at most 6 KiB beyond the table
   * bytes (JDK 17 under surefire, including not yet compiled code); twice that leaves room for deeper
   * stacks, not for a copy of the input.
   */
  static long allocationLimit(int inputLength, boolean knownLength) {
    return knownLength ? inputLength + FIXED_BYTES : 2L * inputLength + FIRST_CHUNK + FIXED_BYTES;
  }

  /** Returns true if the input was accepted; fails the test on any undocumented behaviour. */
  private static boolean read(byte[] input, int iteration, boolean knownLength, boolean measured) {
    Object outcome;
    long before = AllocationCounter.allocated();
    try {
      outcome = knownLength
          ? CuckooFilter.fromByteArray(input)
          : CuckooFilter.readFrom(new ByteArrayInputStream(input));
    } catch (Throwable t) {
      outcome = t;
    }
    // Only the reader is measured, not the checks below (which copy and re-serialize the input).
    long allocated = AllocationCounter.allocated() - before;
    if (outcome instanceof FilterFormatException expected) {
      assertTrue(expected.getMessage() != null && !expected.getMessage().isBlank());
    } else if (outcome instanceof Throwable t) {
      fail("input " + iteration + " (" + input.length + " bytes) threw " + t, t);
    }
    if (measured) {
      assertTrue(allocated <= allocationLimit(input.length, knownLength), () -> "input " + iteration + " of "
          + input.length + " bytes allocated " + allocated + (knownLength ? "" : " reading from a stream"));
    }
    if (!(outcome instanceof CuckooFilter filter)) {
      return false;
    }
    byte[] again = filter.toByteArray();
    if (knownLength) {
      assertTrue(Arrays.equals(input, again), "accepted input " + iteration + " does not round-trip");
    } else {
      assertTrue(Arrays.equals(Arrays.copyOf(input, again.length), again), "accepted prefix differs");
    }
    return true;
  }

  static byte[] mutate(byte[] seed, List<byte[]> seeds, SplittableRandom r) {
    byte[] b = seed.clone();
    int kind = r.nextInt(10);
    switch (kind) {
      case 0 -> { // flip random bits
        for (int k = 1 + r.nextInt(4); k > 0; k--) {
          b[r.nextInt(b.length)] ^= (byte) (1 << r.nextInt(8));
        }
      }
      case 1 -> b[r.nextInt(b.length)] = (byte) r.nextInt(256);
      case 2 -> { // insert bytes
        int at = r.nextInt(b.length + 1);
        byte[] extra = new byte[1 + r.nextInt(16)];
        r.nextBytes(extra);
        byte[] out = new byte[b.length + extra.length];
        System.arraycopy(b, 0, out, 0, at);
        System.arraycopy(extra, 0, out, at, extra.length);
        System.arraycopy(b, at, out, at + extra.length, b.length - at);
        b = out;
      }
      case 3 -> { // delete bytes
        int at = r.nextInt(b.length);
        int n = Math.min(b.length - at, 1 + r.nextInt(16));
        byte[] out = new byte[b.length - n];
        System.arraycopy(b, 0, out, 0, at);
        System.arraycopy(b, at + n, out, at, b.length - at - n);
        b = out;
      }
      case 4 -> b = Arrays.copyOf(b, r.nextInt(b.length)); // truncate
      case 5 -> { // splice two filters
        byte[] other = seeds.get(r.nextInt(seeds.size()));
        int cut = r.nextInt(Math.min(b.length, other.length));
        System.arraycopy(other, cut, b, cut, Math.min(b.length, other.length) - cut);
      }
      case 6, 7 -> { // rewrite a header field, repair the header checksum
        b = rewriteField(b, r);
        repairHeader(b);
      }
      case 8 -> { // rewrite a header field, repair both checksums
        b = rewriteField(b, r);
        repairHeader(b);
        repairBody(b);
      }
      default -> { // random table bytes with valid checksums: exercises structural validation
        for (int k = 1 + r.nextInt(8); k > 0 && b.length > 84; k--) {
          b[80 + r.nextInt(b.length - 84)] = (byte) r.nextInt(256);
        }
        repairBody(b);
      }
    }
    return b;
  }

  static byte[] rewriteField(byte[] b, SplittableRandom r) {
    if (b.length < 80) {
      return b;
    }
    ByteBuffer h = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
    int at = HEADER_FIELDS[r.nextInt(HEADER_FIELDS.length)];
    long[] extremes = {0, 1, 2, -1, Long.MAX_VALUE, Long.MIN_VALUE, 1L << 32, (1L << 32) + 2, 1L << 31, 255, 256};
    long value = r.nextBoolean() ? extremes[r.nextInt(extremes.length)] : r.nextLong();
    if (at <= 11 && at != 4) {
      h.put(at, (byte) value);
    } else if (at == 4) {
      h.putShort(at, (short) value);
    } else if (at == 12 || at == 72) {
      h.putInt(at, (int) value);
    } else {
      h.putLong(at, value);
    }
    return b;
  }

  static void repairHeader(byte[] b) {
    if (b.length >= 80) {
      CRC32C crc = new CRC32C();
      crc.update(b, 0, 76);
      ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).putInt(76, (int) crc.getValue());
    }
  }

  static void repairBody(byte[] b) {
    if (b.length >= 84) {
      FormatTest.fixBodyCrc(b);
    }
  }

  @Test
  void theFuzzerReachesTheStructuralChecks() {
    // Sanity check of the harness itself: a repaired random table byte must be caught by validation
    // (semi-sorted code range or item count), not by a checksum.
    byte[] seed = FormatTest.variants().stream().filter(f -> f.parameters().semiSorted()).findFirst().orElseThrow()
        .toByteArray();
    byte[] b = seed.clone();
    b[80] = (byte) 0xFF;
    b[81] = (byte) 0xFF;
    repairBody(b);
    String message = FormatTest.rejection(b);
    assertTrue(!message.contains("checksum"), message);
    assertEquals(seed.length, b.length);
  }
}
