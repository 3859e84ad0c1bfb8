package dev.cuckoofilter.bench;

import com.google.common.hash.Funnels;
import dev.cuckoofilter.core.CuckooFilter;
import dev.cuckoofilter.core.sizing.Sizing;
import dev.cuckoofilter.core.table.BucketStorage;
import java.io.IOException;
import java.io.OutputStream;
import org.apache.parquet.column.values.bloomfilter.BlockSplitBloomFilter;
import org.fastfilter.cuckoo.Cuckoo16;

/**
 * The filters compared, each configured for {@code n} keys at a false-positive rate of about 0.2%
 * ({@link #TARGET_FPP}), or at its fixed design where it has no such parameter.
 */
public enum FilterKind {
  /** This project, b = 4, f = 12: (log2(1/0.002) + 3) / alpha bits. */
  CF {
    @Override
    public BenchFilter create(long n) {
      return new Ours(CuckooFilter.builder().bucketSize(4).fingerprintBits(12).expectedItems(n).build());
    }
  },
  /** This project, semi-sorted, f = 13 stored in 12 bits per entry: half the false positives of CF. */
  SS_CF {
    @Override
    public BenchFilter create(long n) {
      return new Ours(CuckooFilter.builder().semiSorted(true).fingerprintBits(13).expectedItems(n).build());
    }
  },
  /** Spark's org.apache.spark.util.sketch.BloomFilter (what df.stat().bloomFilter builds). */
  SPARK_BLOOM {
    @Override
    public BenchFilter create(long n) {
      org.apache.spark.util.sketch.BloomFilter f = org.apache.spark.util.sketch.BloomFilter.create(n, TARGET_FPP);
      return new BenchFilter() {
        @Override
        public boolean add(long key) {
          f.putLong(key);
          return true;
        }

        @Override
        public boolean mightContain(long key) {
          return f.mightContainLong(key);
        }

        @Override
        public long bitSize() {
          return f.bitSize();
        }
      };
    }
  },
  /** Guava's com.google.common.hash.BloomFilter. */
  GUAVA_BLOOM {
    @Override
    public BenchFilter create(long n) {
      com.google.common.hash.BloomFilter<Long> f =
          com.google.common.hash.BloomFilter.create(Funnels.longFunnel(), n, TARGET_FPP);
      return new BenchFilter() {
        @Override
        public boolean add(long key) {
          f.put(key);
          return true;
        }

        @Override
        public boolean mightContain(long key) {
          return f.mightContain(key);
        }

        @Override
        public long bitSize() {
          CountingStream out = new CountingStream();
          try {
            f.writeTo(out);
          } catch (IOException e) {
            throw new IllegalStateException(e);
          }
          return (out.count - 6) * 8; // minus Guava's 6-byte header (strategy, hash count, length)
        }
      };
    }
  },
  /** Parquet's split-block Bloom filter (org.apache.parquet.column.values.bloomfilter). */
  PARQUET_BLOOM {
    @Override
    public BenchFilter create(long n) {
      int bytes = BlockSplitBloomFilter.optimalNumOfBits(n, TARGET_FPP) / 8;
      BlockSplitBloomFilter f = new BlockSplitBloomFilter(bytes, BlockSplitBloomFilter.UPPER_BOUND_BYTES);
      return new BenchFilter() {
        @Override
        public boolean add(long key) {
          f.insertHash(f.hash(key));
          return true;
        }

        @Override
        public boolean mightContain(long key) {
          return f.findHash(f.hash(key));
        }

        @Override
        public long bitSize() {
          return f.getBitsetSize() * 8L;
        }
      };
    }
  },
  /** fastfilter_java 1.0.2 Cuckoo16: 16-bit fingerprints, 4 per bucket (no delete). */
  FASTFILTER_CUCKOO16 {
    @Override
    public BenchFilter create(long n) {
      Cuckoo16 f = new Cuckoo16((int) (n / 0.94));
      return new BenchFilter() {
        @Override
        public boolean add(long key) {
          f.insert(key);
          return true;
        }

        @Override
        public boolean mightContain(long key) {
          return f.mayContain(key);
        }

        @Override
        public long bitSize() {
          return f.getBitCount();
        }
      };
    }
  },
  /** CuckooFilter4J 1.0.2 (com.github.mgunlogson), Guava-funnel based, thread-safe. */
  CUCKOOFILTER4J {
    @Override
    public BenchFilter create(long n) {
      com.github.mgunlogson.cuckoofilter4j.CuckooFilter<Long> f =
          new com.github.mgunlogson.cuckoofilter4j.CuckooFilter.Builder<>(Funnels.longFunnel(), n)
              .withFalsePositiveRate(TARGET_FPP).build();
      return new BenchFilter() {
        @Override
        public boolean add(long key) {
          return f.put(key);
        }

        @Override
        public boolean mightContain(long key) {
          return f.mightContain(key);
        }

        @Override
        public boolean remove(long key) {
          return f.delete(key);
        }

        @Override
        public long bitSize() {
          return f.getStorageSize();
        }
      };
    }
  },
  /**
   * Not a filter: the least work one lookup of any two-bucket cuckoo filter can do, as a baseline for
   * the lookup benchmarks. A table of CF's size (buckets of four 12-bit fields); a lookup hashes the key
   * (two multiplications), derives both bucket indexes from the hash alone, reads the two buckets and
   * compares their fields with the fingerprint. {@code add} stores the fingerprint in the first bucket's
   * first field, overwriting, so positive lookups may miss. Only in the benchmarks' parameters when
   * asked for ({@code -p filter=...,TWO_READ_CEILING}).
   */
  TWO_READ_CEILING {
    @Override
    public BenchFilter create(long n) {
      return new TwoReadCeiling(Sizing.bucketCount(n, 4, 12)); // CF's table, without building one
    }
  };

  /** The false-positive rate every configurable filter is sized for. */
  public static final double TARGET_FPP = 0.002;

  public abstract BenchFilter create(long n);

  /** Whether this is a real filter; {@link #TWO_READ_CEILING} is a lookup baseline only. */
  public boolean isFilter() {
    return this != TWO_READ_CEILING;
  }

  /** Whether the filter can delete. */
  public boolean deletes() {
    return this == CF || this == SS_CF || this == CUCKOOFILTER4J;
  }

  /**
   * This project's filter for {@code n} keys, for the benchmarks of its batched API, which the other
   * filters do not have: they are refused before any key is generated.
   */
  public CuckooFilter cuckooFilter(long n, String benchmark) {
    if (this != CF && this != SS_CF) {
      throw new IllegalArgumentException("filter=" + this + " has no batched API: " + benchmark + " takes CF and SS_CF");
    }
    return ((Ours) create(n)).filter;
  }

  /** This project's filter behind the benchmark interface. */
  static final class Ours implements BenchFilter {
    final CuckooFilter filter;

    Ours(CuckooFilter filter) {
      this.filter = filter;
    }

    @Override
    public boolean add(long key) {
      return filter.add(key);
    }

    @Override
    public boolean mightContain(long key) {
      return filter.mightContain(key);
    }

    @Override
    public boolean remove(long key) {
      return filter.remove(key);
    }

    @Override
    public long bitSize() {
      return filter.bitSize();
    }
  }

  /** {@link #TWO_READ_CEILING}: two reads and a compare per lookup, nothing else. */
  static final class TwoReadCeiling implements BenchFilter {
    static final int BUCKET_BITS = 48;
    private static final long ONES = 0x001001001001L;
    private static final long HIGHS = ONES << 11;
    private final byte[] table;
    private final long buckets;

    TwoReadCeiling(long buckets) {
      this.buckets = buckets;
      this.table = new byte[Math.toIntExact(buckets * 6 + 8)];
    }

    private static long hash(long key) {
      long z = (key ^ (key >>> 30)) * 0xBF58476D1CE4E5B9L;
      return (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    }

    private int offset(long hash32) {
      return (int) (((hash32 * buckets) >>> 32) * 6);
    }

    @Override
    public boolean add(long key) {
      long h = hash(key);
      int at = offset(h >>> 32);
      long word = BucketStorage.readLong(table, at);
      BucketStorage.writeLong(table, at, (word & ~0xfffL) | (h & 0xfff) | 1);
      return true;
    }

    @Override
    public boolean mightContain(long key) {
      long h = hash(key);
      long q = ((h & 0xfff) | 1) * ONES;
      long x1 = BucketStorage.readLong(table, offset(h >>> 32)) ^ q;
      long x2 = BucketStorage.readLong(table, offset(h & 0xffffffffL)) ^ q;
      return ((((x1 - ONES) & ~x1) | ((x2 - ONES) & ~x2)) & HIGHS) != 0;
    }

    @Override
    public long bitSize() {
      return buckets * BUCKET_BITS;
    }
  }

  private static final class CountingStream extends OutputStream {
    long count;

    @Override
    public void write(int b) {
      count++;
    }

    @Override
    public void write(byte[] b, int off, int len) {
      count += len;
    }
  }
}
