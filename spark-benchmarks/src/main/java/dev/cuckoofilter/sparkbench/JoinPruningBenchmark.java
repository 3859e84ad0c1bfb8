package dev.cuckoofilter.sparkbench;

import dev.cuckoofilter.spark.CuckooFilters;
import dev.cuckoofilter.spark.SparkCuckooFilter;
import dev.cuckoofilter.spark.prune.JoinPruning;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.util.sketch.BloomFilter;

/**
 * The semi-join pruning scenario: a 20M-row fact table joined with a 10M-row dimension filtered to 1%
 * or 10% of its keys, local[2], sort-merge join forced. For each selectivity, in the same run: no
 * pruning; Spark's runtime bloom filter with its thresholds changed so it fires; Spark's sketch
 * BloomFilter applied with a UDF; and this project's cuckoo filter (built, broadcast and applied; built in
 * the query by its runtime filter rule, reading the join's shuffle of the dimension or scanning it again;
 * and applied from a filter built beforehand). Reports the median wall time, shuffle bytes and records.
 *
 * <pre>
 * mvn -B -ntp -pl spark-benchmarks -am package -DskipTests
 * mvn -B -ntp -pl spark-benchmarks exec:exec -Dbench.args="--data /tmp/spark-cuckoo-bench --out docs/benchmarks/join-pruning.csv"
 * </pre>
 */
public final class JoinPruningBenchmark {
  private final SparkSession spark;
  private final ShuffleMeter meter;
  private final int runs;
  /** Every timed round, so that any two variants can be compared round by round: the {@code -rounds.csv}. */
  private final List<String> rounds = new ArrayList<>(List.of("selectivity,variant,round,seconds"));

  private JoinPruningBenchmark(SparkSession spark, int runs) {
    this.spark = spark;
    this.meter = new ShuffleMeter(spark);
    this.runs = runs;
  }

  public static void main(String[] args) throws IOException {
    Map<String, String> opts = Args.parse(args, Map.of(
        "--data", "/tmp/spark-cuckoo-bench", "--out", "", "--runs", "3", "--selectivities", "0.01,0.1",
        "--fact-rows", String.valueOf(BenchData.FACT_ROWS), "--dim-rows", String.valueOf(BenchData.DIM_ROWS),
        "--suite", "all"),
        "JoinPruningBenchmark: the fact/dimension semi-join pruning scenario; --suite pruning (explicit pruning, "
            + "sort-merge join forced), rule (Spark defaults with and without the cuckoo optimizer rule) or all");
    SparkSession spark = SparkSession.builder().master("local[2]").appName("join-pruning-benchmark")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.sql.extensions", "dev.cuckoofilter.spark.CuckooFilterExtensions")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.autoBroadcastJoinThreshold", "-1")
        .config("spark.sql.join.preferSortMergeJoin", "true")
        .getOrCreate();
    String dir = opts.get("--data");
    BenchData.ensure(spark, dir, Long.parseLong(opts.get("--fact-rows")), Long.parseLong(opts.get("--dim-rows")));
    System.out.printf("fact: %,d bytes of Parquet, dim: %,d bytes%n", BenchData.sizeOnDisk(dir + "/fact"),
        BenchData.sizeOnDisk(dir + "/dim"));
    spark.read().parquet(dir + "/fact").createOrReplaceTempView("fact");
    spark.read().parquet(dir + "/dim").createOrReplaceTempView("dim");

    JoinPruningBenchmark bench = new JoinPruningBenchmark(spark, Integer.parseInt(opts.get("--runs")));
    List<String> csv = new ArrayList<>();
    csv.add("selectivity,variant,median_seconds,shuffle_bytes,shuffle_records,result_rows,matching_fact_rows,"
        + "median_speedup_vs_baseline");
    String suite = opts.get("--suite");
    for (String s : opts.get("--selectivities").split(",")) {
      if (suite.equals("pruning") || suite.equals("all")) {
        bench.scenario(Double.parseDouble(s), csv);
      }
      if (suite.equals("rule") || suite.equals("all")) {
        bench.ruleScenario(Double.parseDouble(s), dir, csv);
      }
    }
    if (!opts.get("--out").isEmpty()) {
      Path out = Path.of(opts.get("--out"));
      if (out.getParent() != null) {
        Files.createDirectories(out.getParent());
      }
      Files.write(out, csv);
      String name = out.getFileName().toString();
      Path roundsOut = out.resolveSibling(name.replaceFirst("(\\.csv)?$", "-rounds.csv"));
      Files.write(roundsOut, bench.rounds);
      System.out.println("wrote " + out + " and " + roundsOut);
    }
    spark.stop();
  }

  private void scenario(double selectivity, List<String> csv) {
    int segments = (int) Math.round(selectivity * 100);
    String dimFilter = "segment < " + segments;
    Dataset<Row> dim = spark.table("dim").where(dimFilter).select("dim_key");
    Dataset<Row> fact = spark.table("fact");
    long dimKeys = dim.count();
    long matching = spark.sql("SELECT count(*) FROM fact f LEFT SEMI JOIN dim d ON f.dim_key = d.dim_key AND d."
        + dimFilter).first().getLong(0);
    // The fact rows that do not match are (1 - s) of 20M; letting at most 0.5% of the matching count
    // through means a false-positive rate of 0.5% * s / (1 - s).
    double fpp = Math.max(1e-7, 0.005 * 0.5 * matching / (double) (fact.count() - matching));
    System.out.printf(Locale.ROOT, "%n== selectivity %.0f%%: %,d dimension keys, %,d matching fact rows, fpp %.2g%n",
        selectivity * 100, dimKeys, matching, fpp);

    String query = "SELECT count(*) AS n, sum(f.amount) AS total FROM fact f JOIN dim d ON f.dim_key = d.dim_key WHERE d."
        + dimFilter;
    Map<String, Supplier<Row>> variants = new LinkedHashMap<>();
    variants.put("no pruning", () -> withRuntimeFilter(false, () -> spark.sql(query).first()));
    variants.put("spark runtime bloom filter", () -> withRuntimeFilter(true, () -> spark.sql(query).first()));
    boolean injected = withRuntimeFilter(true, () -> spark.sql(query).queryExecution().optimizedPlan().toString()
        .contains("might_contain"));
    System.out.println("Spark's runtime bloom filter injected with the changed thresholds: " + injected);
    variants.put("spark sketch bloom filter + udf", () -> {
      BloomFilter bf = dim.stat().bloomFilter("dim_key", dimKeys, fpp);
      Broadcast<BloomFilter> b = spark.sparkContext().broadcast(bf, scala.reflect.ClassTag$.MODULE$.apply(BloomFilter.class));
      spark.udf().register("bloom_contains", (UDF1<Long, Boolean>) k -> k != null && b.value().mightContainLong(k),
          DataTypes.BooleanType);
      return withRuntimeFilter(false, () -> fact.where("bloom_contains(dim_key)").join(dim, "dim_key")
          .selectExpr("count(*)", "sum(amount)").first());
    });
    variants.put("cuckoo filter (build + broadcast + prune)", () -> withRuntimeFilter(false, () -> {
      SparkCuckooFilter f = CuckooFilters.builder(dim).keys("dim_key").expectedItems(dimKeys).fpp(fpp).build();
      return f.prune(fact, "dim_key").join(dim, "dim_key").selectExpr("count(*)", "sum(amount)").first();
    }));
    // The one-call API: the filter is built lazily, in a subquery of the join's own query.
    variants.put("cuckoo one-call join (CuckooFilters.join)", () -> withRuntimeFilter(false, () ->
        CuckooFilters.join(fact, dim, List.of("dim_key"), "inner", JoinPruning.Side.LEFT, fpp)
            .selectExpr("count(*)", "sum(amount)").first()));
    // The same SQL as Spark's runtime filter variant, with this project's rule building the filter in the
    // query instead (at the fpp above): from the map tasks of the join's shuffle of the dimension side (the
    // default), by aggregating that shuffle's output, or from a second scan of the dimension.
    variants.put("cuckoo runtime filter rule (shared shuffle)", () -> withCuckooRule(fpp, true, true,
        () -> spark.sql(query).first()));
    variants.put("cuckoo runtime filter rule (shared shuffle without map-side build)", () -> withCuckooRule(fpp, true,
        false, () -> spark.sql(query).first()));
    variants.put("cuckoo runtime filter rule (own scan)", () -> withCuckooRule(fpp, false, false,
        () -> spark.sql(query).first()));
    SparkCuckooFilter prebuilt = CuckooFilters.builder(dim).keys("dim_key").expectedItems(dimKeys).fpp(fpp).build();
    variants.put("cuckoo filter (built beforehand)", () -> withRuntimeFilter(false, () ->
        prebuilt.prune(fact, "dim_key").join(dim, "dim_key").selectExpr("count(*)", "sum(amount)").first()));

    run(variants, "spark runtime bloom filter", selectivity, matching, csv);
  }

  /**
   * Times each variant and records the median. One warm-up of every variant, then the runs in rounds that
   * visit every variant once, so a slow minute of a shared machine falls on all variants alike instead
   * of on whichever variant happened to be running. Speedups are paired: the baseline's time over the
   * variant's in the same round, median over the rounds.
   */
  private void run(Map<String, Supplier<Row>> variants, String baseline, double selectivity, long matching,
      List<String> csv) {
    List<String> names = new ArrayList<>(variants.keySet());
    double[][] seconds = new double[names.size()][runs];
    long[][] shuffle = new long[names.size()][];
    Row[] results = new Row[names.size()];
    for (String name : names) {
      variants.get(name).get();
    }
    for (int r = 0; r < runs; r++) {
      for (int v = 0; v < names.size(); v++) {
        meter.reset();
        long start = System.nanoTime();
        results[v] = variants.get(names.get(v)).get();
        seconds[v][r] = (System.nanoTime() - start) / 1e9;
        shuffle[v] = meter.read();
        requireSameResult(names.get(0), results[0], names.get(v), results[v]);
      }
    }
    for (int v = 0; v < names.size(); v++) {
      for (int r = 0; r < runs; r++) {
        rounds.add(String.format(Locale.ROOT, "%.2f,%s,%d,%.3f", selectivity, names.get(v), r + 1, seconds[v][r]));
      }
    }
    // Each variant against the one before it, round by round (the stored filter against the rule's build).
    for (int v = 1; v < names.size(); v++) {
      double[] ratios = new double[runs];
      int faster = 0;
      for (int r = 0; r < runs; r++) {
        ratios[r] = seconds[v - 1][r] / seconds[v][r];
        faster += seconds[v][r] < seconds[v - 1][r] ? 1 : 0;
      }
      Arrays.sort(ratios);
      System.out.printf(Locale.ROOT, "%s against %s: %.3fx (median of the rounds' ratios), faster in %d of %d rounds%n",
          names.get(v), names.get(v - 1), ratios[runs / 2], faster, runs);
    }
    int base = names.indexOf(baseline);
    double[][] speedups = new double[names.size()][runs];
    for (int v = 0; v < names.size(); v++) {
      for (int r = 0; r < runs; r++) {
        speedups[v][r] = seconds[base][r] / seconds[v][r];
      }
    }
    System.out.printf("%-66s %10s %12s %16s %14s%n", "variant", "median s", "speedup", "shuffle bytes",
        "shuffle rows");
    for (int v = 0; v < names.size(); v++) {
      Arrays.sort(seconds[v]);
      Arrays.sort(speedups[v]);
      double median = seconds[v][runs / 2];
      double speedup = speedups[v][runs / 2];
      System.out.printf(Locale.ROOT, "%-66s %10.2f %11.2fx %,16d %,14d   (%s)%n", names.get(v), median, speedup,
          shuffle[v][0], shuffle[v][1], results[v]);
      csv.add(String.format(Locale.ROOT, "%.2f,%s,%.3f,%d,%d,%d,%d,%.3f", selectivity, names.get(v), median,
          shuffle[v][0], shuffle[v][1], results[v].getLong(0), matching, speedup));
    }
    System.out.println("speedup: " + baseline + "'s time over the variant's in the same round, median of "
        + runs + " rounds");
  }

  /**
   * Stops the benchmark if a variant's answer, a count and a sum of doubles, is not the reference variant's:
   * the count exactly, the sum up to the rounding of adding the same values in another order.
   */
  static void requireSameResult(String referenceName, Row reference, String name, Row result) {
    double a = reference.getDouble(1);
    double b = result.getDouble(1);
    if (reference.getLong(0) != result.getLong(0) || Math.abs(a - b) > 1e-9 * Math.max(Math.abs(a), Math.abs(b))) {
      throw new IllegalStateException(name + " returned " + result + ", " + referenceName + " " + reference);
    }
  }

  /**
   * The same query with Spark's defaults (adaptive execution, 10 MB broadcast threshold, its runtime bloom
   * filter thresholds unchanged), without and with the cuckoo optimizer rule, and with a registered stored
   * filter of the dimension slice (stored beforehand, untimed).
   */
  private void ruleScenario(double selectivity, String dir, List<String> csv) throws IOException {
    int segments = (int) Math.round(selectivity * 100);
    spark.conf().unset("spark.sql.autoBroadcastJoinThreshold");
    spark.conf().unset("spark.sql.join.preferSortMergeJoin");
    String slice = "dim_slice_" + segments;
    spark.sql("CREATE OR REPLACE TEMP VIEW " + slice + " AS SELECT * FROM dim WHERE segment < " + segments);
    String query = "SELECT count(*) AS n, sum(f.amount) AS total FROM fact f JOIN dim d ON f.dim_key = d.dim_key "
        + "WHERE d.segment < " + segments;
    String viaView = "SELECT count(*) AS n, sum(f.amount) AS total FROM fact f JOIN " + slice
        + " d ON f.dim_key = d.dim_key";
    long matching = spark.sql("SELECT count(*) FROM fact f LEFT SEMI JOIN " + slice + " d ON f.dim_key = d.dim_key")
        .first().getLong(0);
    String location = Path.of(dir, "filters", slice).toUri().toString();
    dev.cuckoofilter.spark.optimizer.StoredFilterIndex.storeIndex(spark, slice, List.of("dim_key"), location, 0.001);
    System.out.printf(Locale.ROOT, "%n== Spark defaults, selectivity %.0f%%: %,d matching fact rows%n", selectivity * 100,
        matching);
    Map<String, Supplier<Row>> variants = new LinkedHashMap<>();
    variants.put("spark defaults", () -> withRule(false, null, () -> spark.sql(query).first()));
    variants.put("spark defaults + cuckoo rule", () -> withRule(true, null, () -> spark.sql(query).first()));
    variants.put("+ registered stored filter", () -> withRule(true, slice + "=" + location,
        () -> spark.sql(viaView).first()));
    run(variants, "spark defaults", selectivity, matching, csv);
    spark.conf().set("spark.sql.autoBroadcastJoinThreshold", "-1");
    spark.conf().set("spark.sql.join.preferSortMergeJoin", "true");
  }

  /**
   * Runs with the cuckoo rule on or off and, if given as {@code view=location}, one registered stored
   * filter (registrations match by plan, so the build-only variants must run without it).
   */
  private <T> T withRule(boolean enabled, String registration, Supplier<T> body) {
    String prefix = dev.cuckoofilter.spark.optimizer.StoredFilterIndex.PREFIX;
    for (String key : spark.conf().getAll().keySet().toList().mkString("\n").split("\n")) {
      if (key.startsWith(prefix)) {
        spark.conf().unset(key);
      }
    }
    spark.conf().set(dev.cuckoofilter.spark.optimizer.RuntimeFilterConf.ENABLED, String.valueOf(enabled));
    if (registration != null) {
      String[] parts = registration.split("=", 2);
      dev.cuckoofilter.spark.optimizer.StoredFilterIndex.register(spark, parts[0], parts[1]);
    }
    try {
      return body.get();
    } finally {
      spark.conf().unset(dev.cuckoofilter.spark.optimizer.RuntimeFilterConf.ENABLED);
    }
  }

  /** Runs with Spark's runtime bloom filter off and the cuckoo rule on, at {@code fpp}. */
  private <T> T withCuckooRule(double fpp, boolean shareShuffle, boolean mapSideBuild, Supplier<T> body) {
    spark.conf().set("spark.sql.optimizer.runtime.bloomFilter.enabled", "false");
    spark.conf().set(dev.cuckoofilter.spark.optimizer.RuntimeFilterConf.ENABLED, "true");
    spark.conf().set(dev.cuckoofilter.spark.optimizer.RuntimeFilterConf.FPP, String.valueOf(fpp));
    spark.conf().set(dev.cuckoofilter.spark.optimizer.RuntimeFilterConf.SHARE_SHUFFLE, String.valueOf(shareShuffle));
    if (!mapSideBuild) {
      spark.conf().set(dev.cuckoofilter.spark.optimizer.RuntimeFilterConf.MAP_SIDE_BUILD_MAX_BYTES, "0");
    }
    try {
      return body.get();
    } finally {
      spark.conf().unset("spark.sql.optimizer.runtime.bloomFilter.enabled");
      spark.conf().unset(dev.cuckoofilter.spark.optimizer.RuntimeFilterConf.ENABLED);
      spark.conf().unset(dev.cuckoofilter.spark.optimizer.RuntimeFilterConf.FPP);
      spark.conf().unset(dev.cuckoofilter.spark.optimizer.RuntimeFilterConf.SHARE_SHUFFLE);
      spark.conf().unset(dev.cuckoofilter.spark.optimizer.RuntimeFilterConf.MAP_SIDE_BUILD_MAX_BYTES);
    }
  }

  /** Runs with Spark's runtime bloom filter on (thresholds changed so it applies here) or off. */
  private <T> T withRuntimeFilter(boolean enabled, Supplier<T> body) {
    // The explicit-pruning suite compares pruning methods: the automatic cuckoo rule stays off.
    spark.conf().set(dev.cuckoofilter.spark.optimizer.RuntimeFilterConf.ENABLED, "false");
    spark.conf().set("spark.sql.optimizer.runtime.bloomFilter.enabled", String.valueOf(enabled));
    if (enabled) {
      spark.conf().set("spark.sql.optimizer.runtime.bloomFilter.applicationSideScanSizeThreshold", "10MB");
      spark.conf().set("spark.sql.optimizer.runtime.bloomFilter.creationSideThreshold", "4GB");
    }
    try {
      return body.get();
    } finally {
      spark.conf().unset("spark.sql.optimizer.runtime.bloomFilter.applicationSideScanSizeThreshold");
      spark.conf().unset("spark.sql.optimizer.runtime.bloomFilter.creationSideThreshold");
      spark.conf().unset("spark.sql.optimizer.runtime.bloomFilter.enabled");
      spark.conf().unset(dev.cuckoofilter.spark.optimizer.RuntimeFilterConf.ENABLED);
    }
  }
}
