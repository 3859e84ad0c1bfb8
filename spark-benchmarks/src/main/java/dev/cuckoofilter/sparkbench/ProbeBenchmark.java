package dev.cuckoofilter.sparkbench;

import dev.cuckoofilter.spark.CuckooFilters;
import dev.cuckoofilter.spark.SparkCuckooFilter;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.expressions.BloomFilterMightContain;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.util.sketch.BloomFilter;

/**
 * Per-row cost of probing in a whole-stage-compiled filter: this project's {@code cuckoo_might_contain}
 * against Spark's own {@code might_contain} (the runtime bloom filter's expression), both over a filter of
 * K keys, on N generated rows; the cost of a trivial predicate over the same rows is subtracted.
 *
 * <pre>
 * mvn -B -ntp -pl spark-benchmarks exec:exec -Dbench.main=dev.cuckoofilter.sparkbench.ProbeBenchmark -Dbench.args="--runs 5"
 * </pre>
 */
public final class ProbeBenchmark {
  private ProbeBenchmark() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> opts = Args.parse(args, Map.of("--rows", "200000000", "--keys", "10000000", "--fpp", "0.01",
        "--runs", "5"), "ProbeBenchmark: per-row probe cost against Spark's might_contain");
    long rows = Long.parseLong(opts.get("--rows"));
    long keys = Long.parseLong(opts.get("--keys"));
    double fpp = Double.parseDouble(opts.get("--fpp"));
    int runs = Integer.parseInt(opts.get("--runs"));
    SparkSession spark = SparkSession.builder().master("local[2]").appName("probe-benchmark")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.sql.extensions", "dev.cuckoofilter.spark.CuckooFilterExtensions").config("spark.ui.enabled", "false").getOrCreate();

    Dataset<Row> keyData = spark.range(0, keys * 10, 10, 16).toDF("id"); // every 10th id is a key
    SparkCuckooFilter cuckoo = CuckooFilters.builder(keyData).keys("id").expectedItems(keys).fpp(fpp).build();
    BloomFilter bloom = keyData.stat().bloomFilter("id", keys, fpp);
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    bloom.writeTo(bytes);
    Column sparkProbe = new Column(new BloomFilterMightContain(
        Literal.create(bytes.toByteArray(), DataTypes.BinaryType), functions.col("id").expr()));

    Dataset<Row> data = spark.range(0, rows, 1, 16).toDF("id");
    Map<String, Column> predicates = new java.util.LinkedHashMap<>();
    predicates.put("baseline (id % 7 != 3)", functions.expr("id % 7 != 3"));
    predicates.put("spark might_contain (bloom filter)", sparkProbe);
    predicates.put("cuckoo_might_contain", cuckoo.mightContain("id"));
    double baseline = 0;
    System.out.printf(Locale.ROOT, "%,d rows, filters of %,d keys (cuckoo %,d bytes, bloom %,d bytes)%n", rows, keys,
        cuckoo.filter().serializedSize(), bytes.size());
    for (Map.Entry<String, Column> p : predicates.entrySet()) {
      Dataset<Row> q = data.where(p.getValue()).selectExpr("count(*)");
      q.first(); // warm-up and code generation
      double[] t = new double[runs];
      long kept = 0;
      for (int r = 0; r < runs; r++) {
        long start = System.nanoTime();
        kept = q.first().getLong(0);
        t[r] = (System.nanoTime() - start) / 1e9;
      }
      Arrays.sort(t);
      double nsPerRow = t[runs / 2] * 1e9 / rows;
      if (baseline == 0) {
        baseline = nsPerRow;
      }
      System.out.printf(Locale.ROOT, "%-36s %.2f s, %.2f ns/row, %.2f ns/row over the baseline (%,d rows kept)%n",
          p.getKey(), t[runs / 2], nsPerRow, nsPerRow - baseline, kept);
    }
    spark.stop();
  }
}
