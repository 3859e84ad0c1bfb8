package dev.cuckoofilter.sparkbench;

import dev.cuckoofilter.core.CanonicalBuilder;
import dev.cuckoofilter.core.CuckooFilter;
import dev.cuckoofilter.core.EntryCodes;
import dev.cuckoofilter.core.FilterParameters;
import dev.cuckoofilter.core.hash.CuckooHash;
import dev.cuckoofilter.spark.CuckooFilters;
import dev.cuckoofilter.spark.SparkCuckooFilter;
import dev.cuckoofilter.spark.aggregate.EntrySetBuffer;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoder;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.expressions.Aggregator;
import org.apache.spark.sql.functions;

/**
 * The distributed build at scale (local[2]): time, bytes shuffled and peak heap for N distinct keys in
 * 64 partitions, and the native Catalyst aggregate against the same algorithm as a typed
 * {@code Aggregator} registered with {@code functions.udaf}.
 *
 * <pre>
 * mvn -B -ntp -pl spark-benchmarks exec:exec -Dbench.main=dev.cuckoofilter.sparkbench.BuildBenchmark -Dbench.args="--keys 100000000"
 * </pre>
 */
public final class BuildBenchmark {
  private BuildBenchmark() {}

  public static void main(String[] args) {
    Map<String, String> opts = Args.parse(args, Map.of("--keys", "100000000", "--partitions", "64",
        "--compare-keys", "10000000", "--fpp", "0.01", "--sizing", "given"),
        "BuildBenchmark: the distributed build at scale; --sizing given (expectedItems = --keys), approximate (the "
            + "builder's default: an approximate distinct count first) or exact (the distinct count in the same job)");
    long keys = Long.parseLong(opts.get("--keys"));
    int partitions = Integer.parseInt(opts.get("--partitions"));
    double fpp = Double.parseDouble(opts.get("--fpp"));
    SparkSession spark = SparkSession.builder().master("local[2]").appName("build-benchmark")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.sql.extensions", "dev.cuckoofilter.spark.CuckooFilterExtensions").config("spark.ui.enabled", "false").getOrCreate();
    ShuffleMeter meter = new ShuffleMeter(spark);

    // Distinct keys spread over the long range (a multiplicative permutation of 0..N-1).
    Dataset<Row> data = spark.range(0, keys, 1, partitions).selectExpr("id * 2654435761 AS k");
    resetPeakHeap();
    meter.reset();
    long start = System.nanoTime();
    CuckooFilters.Builder builder = CuckooFilters.builder(data).keys("k").fpp(fpp);
    String sizing = opts.get("--sizing");
    switch (sizing) {
      case "given" -> builder.expectedItems(keys);
      case "approximate" -> { } // the default
      case "exact" -> builder.exactCount(true);
      default -> throw new IllegalArgumentException("--sizing must be given, approximate or exact, got " + sizing);
    }
    SparkCuckooFilter filter = builder.build();
    double seconds = (System.nanoTime() - start) / 1e9;
    long[] shuffle = meter.read();
    System.out.printf(Locale.ROOT, "build of %,d distinct keys in %d partitions, sizing %s: %.1f s (%.2f M keys/s), shuffle %,d bytes "
            + "(%.2f bytes/key), peak heap %,d MB, filter %,d bytes (%.2f bits/key)%n",
        keys, partitions, sizing, seconds, keys / seconds / 1e6, shuffle[0], (double) shuffle[0] / keys, peakHeap() >> 20,
        filter.filter().serializedSize(), filter.filter().bitsPerItem());

    long compare = Long.parseLong(opts.get("--compare-keys"));
    Dataset<Row> sample = spark.range(0, compare, 1, partitions).selectExpr("id * 2654435761 AS k");
    FilterParameters p = CuckooFilter.builder().expectedItems(compare).fpp(fpp).parameters();
    spark.udf().register("cuckoo_filter_udaf", functions.udaf(new EntrySetAggregator(p), Encoders.LONG()));
    for (int round = 0; round < 3; round++) {
      long t0 = System.nanoTime();
      byte[] nativeBytes = (byte[]) sample.selectExpr("cuckoo_filter(k, " + compare + ", " + fpp + ")").first().get(0);
      long t1 = System.nanoTime();
      byte[] udafBytes = (byte[]) sample.selectExpr("cuckoo_filter_udaf(k)").first().get(0);
      long t2 = System.nanoTime();
      System.out.printf(Locale.ROOT, "%,d keys: native aggregate %.2f s, Aggregator + udaf %.2f s (%.2fx), same bytes: %b%n",
          compare, (t1 - t0) / 1e9, (t2 - t1) / 1e9, (double) (t2 - t1) / (t1 - t0),
          java.util.Arrays.equals(nativeBytes, udafBytes));
    }
    spark.stop();
  }

  /** The native aggregate's algorithm as a typed Aggregator: key in, the same filter bytes out. */
  static final class EntrySetAggregator extends Aggregator<Long, EntrySetBuffer, byte[]> {
    private static final long serialVersionUID = 1L;
    private final FilterParameters parameters;

    EntrySetAggregator(FilterParameters parameters) {
      this.parameters = parameters;
    }

    @Override
    public EntrySetBuffer zero() {
      return new EntrySetBuffer();
    }

    @Override
    public EntrySetBuffer reduce(EntrySetBuffer buffer, Long key) {
      if (key != null) {
        buffer.add(EntryCodes.ofHash(parameters, CuckooHash.hashLong(key, parameters.seed())));
      }
      return buffer;
    }

    @Override
    public EntrySetBuffer merge(EntrySetBuffer a, EntrySetBuffer b) {
      a.merge(b);
      return a;
    }

    @Override
    public byte[] finish(EntrySetBuffer buffer) {
      CanonicalBuilder builder = new CanonicalBuilder(parameters, true);
      buffer.forEachEntry(builder::addCode);
      return builder.build().toByteArray();
    }

    @Override
    public Encoder<EntrySetBuffer> bufferEncoder() {
      return Encoders.javaSerialization(EntrySetBuffer.class);
    }

    @Override
    public Encoder<byte[]> outputEncoder() {
      return Encoders.BINARY();
    }
  }

  private static void resetPeakHeap() {
    System.gc();
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) {
        pool.resetPeakUsage();
      }
    }
  }

  private static long peakHeap() {
    long total = 0;
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) {
        total += pool.getPeakUsage().getUsed();
      }
    }
    return total;
  }
}
