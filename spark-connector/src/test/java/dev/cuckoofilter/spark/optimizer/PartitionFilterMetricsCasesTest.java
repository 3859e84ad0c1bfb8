package dev.cuckoofilter.spark.optimizer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoofilter.spark.CuckooFilters;
import dev.cuckoofilter.spark.SparkCuckooFilter;
import dev.cuckoofilter.spark.SparkTestSession;
import dev.cuckoofilter.spark.expressions.PruneMetrics;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.expressions.Or;
import org.apache.spark.sql.catalyst.plans.logical.Filter;
import org.apache.spark.sql.execution.ExplainMode;
import org.apache.spark.sql.functions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Cases of PartitionFilterMetrics beyond PartitionFilterMetricsTest, from the review of 2026-11-29: results are those
 * without the partition counts, planning and explaining succeed, and the counts are partitions where Spark prunes
 * with the probe (dynamic partition pruning on the same column, reuse, bucketed tables, a renaming view, a cache)
 * and rows where it filters rows with it (a disjunction with a data column).
 */
class PartitionFilterMetricsCasesTest {
  static SparkSession spark;
  @TempDir
  static Path dir;
  static String byPath;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.builder("local[2]")
        .config("spark.sql.warehouse.dir", dir.resolve("warehouse").toUri().toString())
        .getOrCreate();
    byPath = PartitionFilterMetricsTest.writeTables(spark, dir);
    PartitionFilterMetricsTest.fact(spark).write().partitionBy("part").bucketBy(4, "v").saveAsTable("fact_bkt");
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  @AfterEach
  void resetConf() {
    for (String key : List.of(RuntimeFilterConf.APPLICATION_SIDE_THRESHOLD, "spark.sql.autoBroadcastJoinThreshold",
        "spark.sql.adaptive.enabled", "spark.sql.optimizer.dynamicPartitionPruning.reuseBroadcastOnly")) {
      spark.conf().unset(key);
    }
  }

  static SparkCuckooFilter firstPartitions() {
    return CuckooFilters.builder(spark.range(0, 25).selectExpr("CAST(id AS INT) AS part")).keys("part").fpp(0.001)
        .build();
  }

  static Dataset<Row> table(String t) {
    return switch (t.split(",")[0].trim()) {
      case "path" -> spark.read().parquet(byPath);
      case "catalog" -> spark.table("fact_cat");
      default -> spark.table("fact_bkt");
    };
  }

  static void aqe(String t) {
    spark.conf().set("spark.sql.adaptive.enabled", String.valueOf(t.endsWith("adaptive")));
  }

  static long count(Dataset<Row> df) {
    assertTrue(df.queryExecution().explainString(ExplainMode.fromString("formatted")).contains("Scan"));
    long n = df.collectAsList().size();
    String plan = df.queryExecution().toString();
    assertTrue(plan.contains("== Physical Plan =="), plan);
    return n;
  }

  static void assertOnlyPartitions(List<PruneMetrics> metrics, long in, long out) {
    assertTrue(!metrics.isEmpty());
    long pIn = 0;
    long pOut = 0;
    for (PruneMetrics m : metrics) {
      assertEquals(0, m.rowsIn(), metrics::toString);
      pIn += m.partitionsIn();
      pOut += m.partitionsOut();
    }
    assertEquals(in, pIn, metrics::toString);
    assertEquals(out, pOut, metrics::toString);
  }

  /**
   * Spark's dynamic partition pruning (not reusing a broadcast) and a runtime filter on the same partition column,
   * alone and in a self-union: same results, and the probe counts each of the 40 partitions once.
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"path, adaptive", "path", "catalog, adaptive", "catalog", "bucketed, adaptive", "bucketed"})
  void dynamicPartitionPruningAndARuntimeFilterOnOnePartitionColumn(String t) {
    aqe(t);
    spark.conf().set(RuntimeFilterConf.APPLICATION_SIDE_THRESHOLD, "1KB");
    spark.conf().set("spark.sql.autoBroadcastJoinThreshold", "-1");
    spark.conf().set("spark.sql.optimizer.dynamicPartitionPruning.reuseBroadcastOnly", "false");
    table(t).createOrReplaceTempView("f_t");
    String query = "SELECT f.v, d.part FROM f_t f JOIN dim d ON f.part = d.part WHERE d.grp = 'a'";
    Dataset<Row> both = spark.sql(query);
    assertEquals(2500, count(both));
    String plan = both.queryExecution().optimizedPlan().toString();
    assertTrue(plan.contains("dynamicpruning") && plan.contains("cuckoo_might_contain"), plan);
    assertOnlyPartitions(CuckooFilters.pruneMetrics(both), 40, 25);
    Dataset<Row> union = spark.sql(query + " UNION ALL " + query);
    assertEquals(5000, count(union));
    List<PruneMetrics> metrics = CuckooFilters.pruneMetrics(union);
    assertOnlyPartitions(metrics, 40 * metrics.stream().filter(m -> m.partitionsIn() > 0).count(),
        25 * metrics.stream().filter(m -> m.partitionsIn() > 0).count());
  }

  /**
   * A prune on a partition column in a self-union, in a self-join of aggregates (an exchange reused), in a
   * disjunction with a data column (a row filter: rows), through a view that renames the column, and cached.
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"path, adaptive", "path", "catalog, adaptive", "catalog", "bucketed, adaptive", "bucketed"})
  void aPruneReusedDisjoinedRenamedOrCached(String t) {
    aqe(t);
    SparkCuckooFilter f = firstPartitions();
    Dataset<Row> pruned = f.prune(table(t), "part");
    assertEquals(5000, count(pruned.union(pruned)));
    assertEquals(80, f.partitionsIn());
    assertEquals(50, f.partitionsOut());
    assertEquals(0, f.rowsIn());

    Dataset<Row> one = CuckooFilters.prune(table(t), spark.table("dim").where("grp = 'a'"), 0.001, "part");
    Dataset<Row> agg = one.groupBy("part").count().join(one.groupBy("part").count(), "part");
    assertEquals(25, count(agg));
    assertOnlyPartitions(CuckooFilters.pruneMetrics(agg), 40, 25);

    SparkCuckooFilter g = firstPartitions();
    Dataset<Row> base = table(t);
    Filter filter = (Filter) g.prune(base, "part").queryExecution().analyzed();
    Dataset<Row> or = base.where(new Column(new Or(filter.condition(), functions.col("v").lt(100).expr())));
    assertEquals(table(t).where("part < 25 OR v < 100").count(), count(or));
    assertEquals(0, g.partitionsIn());
    assertEquals(4000, g.rowsIn());
    assertEquals(2500, g.rowsOut());

    table(t).selectExpr("v", "part AS p").createOrReplaceTempView("fv");
    SparkCuckooFilter h = CuckooFilters.builder(spark.range(0, 25).selectExpr("CAST(id AS INT) AS p")).keys("p")
        .fpp(0.001).build();
    assertEquals(2500, count(h.prune(spark.table("fv"), "p")));
    assertEquals(40, h.partitionsIn());
    assertEquals(25, h.partitionsOut());
    assertEquals(0, h.rowsIn());

    SparkCuckooFilter k = firstPartitions();
    Dataset<Row> cached = k.prune(table(t), "part").cache();
    try {
      assertEquals(2500, count(cached));
      assertEquals(2500, count(cached.where("v >= 0")));
      assertEquals(40, k.partitionsIn());
      assertEquals(0, k.rowsIn());
    } finally {
      cached.unpersist();
    }
  }

  /** A prune of a streaming file source by a partition column: each micro-batch's scan prunes its partitions. */
  @org.junit.jupiter.api.Test
  void aPruneOfAStreamingFileSource() throws Exception {
    SparkCuckooFilter f = firstPartitions();
    Dataset<Row> stream = spark.readStream().schema("v BIGINT, part INT").parquet(byPath);
    org.apache.spark.sql.streaming.StreamingQuery q = f.prune(stream, "part").writeStream().format("memory")
        .queryName("pruned_stream").trigger(org.apache.spark.sql.streaming.Trigger.AvailableNow()).start();
    try {
      q.awaitTermination();
    } finally {
      q.stop();
    }
    assertEquals(2500, spark.table("pruned_stream").count());
    assertEquals(2500, spark.table("pruned_stream").where("part < 25").count());
    assertEquals(40, f.partitionsIn());
    assertEquals(25, f.partitionsOut());
    assertEquals(0, f.rowsIn());
  }

  /** A prune in a scalar subquery and in an IN subquery of another query. */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"path, adaptive", "path", "catalog, adaptive", "catalog"})
  void aPruneInASubquery(String t) {
    aqe(t);
    SparkCuckooFilter f = firstPartitions();
    f.prune(table(t), "part").createOrReplaceTempView("pruned_view");
    Dataset<Row> scalar = spark.sql("SELECT (SELECT count(*) FROM pruned_view) AS n");
    assertEquals(2500L, scalar.collectAsList().get(0).getLong(0));
    assertEquals(40, f.partitionsIn());
    assertEquals(25, f.partitionsOut());
    assertEquals(0, f.rowsIn());
    Dataset<Row> in = spark.sql("SELECT count(*) FROM dim WHERE part IN (SELECT part FROM pruned_view)");
    assertEquals(25L, in.collectAsList().get(0).getLong(0));
    assertEquals(80, f.partitionsIn());
    assertEquals(50, f.partitionsOut());
    assertEquals(0, f.rowsIn());
  }
}
