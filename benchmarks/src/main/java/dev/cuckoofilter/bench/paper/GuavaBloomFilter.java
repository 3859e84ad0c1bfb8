package dev.cuckoofilter.bench.paper;

import com.google.common.hash.BloomFilter;
import com.google.common.hash.Funnels;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;

/**
 * Guava's {@code com.google.common.hash.BloomFilter} (the Bloom filter most Java users know) at an exact
 * size. Guava sizes a filter from (items, false-positive rate) and picks the optimal number of hash
 * functions for the resulting size; asking for the rate whose optimal size is {@code bits} gives exactly
 * {@code bits} bits (Guava rounds up to whole longs), which the constructor verifies.
 */
final class GuavaBloomFilter implements PaperFilter {
  private static final int HEADER_BYTES = 6; // strategy, hash-function count, long count

  private final BloomFilter<Long> filter;
  private final long bits;
  private final long capacity;
  private final int hashes;

  GuavaBloomFilter(long bits, long capacity) {
    double ln2 = Math.log(2);
    // Guava: bits = -n ln(p) / ln(2)^2; aim half a word low so the rounding lands on exactly `bits`.
    double fpp = Math.exp(-(bits - 32) * ln2 * ln2 / capacity);
    this.filter = BloomFilter.create(Funnels.longFunnel(), capacity, fpp);
    this.bits = bits;
    this.capacity = capacity;
    Header header = new Header();
    try {
      filter.writeTo(header);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if ((header.bytes - HEADER_BYTES) * 8 != bits) {
      throw new IllegalStateException("Guava sized the filter to " + (header.bytes - HEADER_BYTES) * 8 + " bits, not "
          + bits);
    }
    this.hashes = header.hashFunctions;
  }

  /** Guava's choice of hash-function count, read from its serialized header. */
  @Override
  public String configuration() {
    return "k = " + hashes;
  }

  @Override
  public boolean add(long key) {
    filter.put(key);
    return true;
  }

  @Override
  public boolean mightContain(long key) {
    return filter.mightContain(key);
  }

  @Override
  public long bitSize() {
    return bits;
  }

  @Override
  public long capacity() {
    return capacity;
  }

  /** Counts the serialized bytes and keeps byte 1, the hash-function count. */
  private static final class Header extends OutputStream {
    long bytes;
    int hashFunctions;

    @Override
    public void write(int b) {
      if (bytes == 1) {
        hashFunctions = b & 0xFF;
      }
      bytes++;
    }
  }
}
