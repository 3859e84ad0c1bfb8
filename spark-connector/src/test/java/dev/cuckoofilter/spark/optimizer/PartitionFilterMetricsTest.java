package dev.cuckoofilter.spark.optimizer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoofilter.spark.CuckooFilters;
import dev.cuckoofilter.spark.SparkCuckooFilter;
import dev.cuckoofilter.spark.SparkTestSession;
import dev.cuckoofilter.spark.expressions.PruneMetrics;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A cuckoo filter probe whose key is a partition column of a partitioned file-source table is planned by Spark as a
 * partition filter: evaluated on the driver once with each partition's values, and with no row. Until 2026-11-29 its
 * metrics counted those evaluations as rows: a runtime filter on a table of 40 partitions (4,000 rows) reported "40
 * rows in, 25 rows out", and a prune of a catalog table "65 rows in, 50 rows out" (the 40 partitions, and the 25 kept
 * evaluated again by the scan). They are partitions in and out now, and the rows stay the rows the probe saw.
 */
class PartitionFilterMetricsTest {
  static SparkSession spark;
  @TempDir
  static Path dir;
  static String byPath;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.builder("local[2]")
        .config("spark.sql.warehouse.dir", dir.resolve("warehouse").toUri().toString())
        .getOrCreate();
    byPath = writeTables(spark, dir);
  }

  /**
   * The tables of these tests, returned is the path of the one read by path: 4,000 rows {@code (v, part)} in 40
   * partitions of 100 rows, by path and as the catalog table {@code fact_cat}, and the view {@code dim (part, grp)}
   * whose group {@code 'a'} holds 25 of the partition values (0 to 24), those the filters below hold.
   */
  static String writeTables(SparkSession spark, Path dir) {
    Dataset<Row> fact = fact(spark);
    String byPath = dir.resolve("fact-by-path").toString();
    fact.write().partitionBy("part").parquet(byPath);
    fact.write().partitionBy("part").saveAsTable("fact_cat");
    spark.sql("CREATE OR REPLACE TEMP VIEW dim AS SELECT CAST(id AS INT) AS part, "
        + "CASE WHEN id < 25 THEN 'a' ELSE 'b' END AS grp FROM range(0, 1000)");
    return byPath;
  }

  static Dataset<Row> fact(SparkSession spark) {
    return spark.range(0, 4000).selectExpr("id AS v", "CAST(id % 40 AS INT) AS part");
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  @AfterEach
  void resetConf() {
    for (String key : List.of(RuntimeFilterConf.APPLICATION_SIDE_THRESHOLD, "spark.sql.autoBroadcastJoinThreshold",
        "spark.sql.adaptive.enabled")) {
      spark.conf().unset(key);
    }
  }

  static SparkCuckooFilter firstPartitions() {
    return CuckooFilters.builder(spark.range(0, 25).selectExpr("CAST(id AS INT) AS part")).keys("part").fpp(0.001)
        .build();
  }

  static void assertPartitions(PruneMetrics m, long in, long out) {
    assertEquals(in, m.partitionsIn(), m::toString);
    assertEquals(out, m.partitionsOut(), m::toString);
    assertEquals(0, m.rowsIn(), m::toString);
    assertEquals(0, m.rowsOut(), m::toString);
    assertEquals(m.name() + ": " + in + " partitions in, " + out + " partitions out", m.toString());
  }

  /** Until 2026-11-29: "cuckoo runtime filter on f.part: 40 rows in, 25 rows out", for a table by path or not. */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"path, adaptive", "path", "catalog, adaptive", "catalog"})
  void aRuntimeFilterOfAPartitionColumnCountsPartitions(String table) {
    spark.conf().set("spark.sql.autoBroadcastJoinThreshold", "-1");
    spark.conf().set(RuntimeFilterConf.APPLICATION_SIDE_THRESHOLD, "1KB");
    spark.conf().set("spark.sql.adaptive.enabled", String.valueOf(table.endsWith("adaptive")));
    String fact = table.startsWith("path") ? "parquet.`" + byPath + "`" : "fact_cat";
    Dataset<Row> df = spark.sql("SELECT f.v, d.part FROM " + fact + " f JOIN dim d ON f.part = d.part "
        + "WHERE d.grp = 'a'");
    assertEquals(2500, df.collectAsList().size());
    List<PruneMetrics> metrics = CuckooFilters.pruneMetrics(df);
    assertEquals(1, metrics.size(), metrics::toString);
    assertEquals("cuckoo runtime filter on f.part", metrics.get(0).name());
    assertPartitions(metrics.get(0), 40, 25);
  }

  /** A stored filter of the other side (a join index) is such a filter too: until 2026-11-29, 40 rows in, 25 out. */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"path", "catalog"})
  void aStoredFilterOfAPartitionColumnCountsPartitions(String table) throws Exception {
    spark.conf().set("spark.sql.autoBroadcastJoinThreshold", "-1");
    spark.conf().set(RuntimeFilterConf.APPLICATION_SIDE_THRESHOLD, "1KB");
    String dimFiles = dir.resolve("dim-" + table).toString();
    spark.table("dim").write().parquet(dimFiles);
    spark.read().parquet(dimFiles).where("grp = 'a'").createOrReplaceTempView("dim_a_" + table);
    StoredFilterIndex.storeIndex(spark, "dim_a_" + table, List.of("part"),
        dir.resolve("filters/dim_a_" + table).toUri().toString(), 0.001);
    String fact = table.equals("path") ? "parquet.`" + byPath + "`" : "fact_cat";
    Dataset<Row> df = spark.sql("SELECT f.v, d.part FROM " + fact + " f JOIN dim_a_" + table + " d ON f.part = d.part");
    assertEquals(2500, df.collectAsList().size());
    List<PruneMetrics> metrics = CuckooFilters.pruneMetrics(df);
    assertEquals(1, metrics.size(), metrics::toString);
    assertTrue(metrics.get(0).name().startsWith("stored cuckoo filter on "), metrics::toString);
    assertPartitions(metrics.get(0), 40, 25);
  }

  /** Until 2026-11-29: rowsIn() 40, rowsOut() 25 (by path); 65 and 50 for a catalog table. */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"path", "catalog"})
  void aPruneOnAPartitionColumnCountsPartitions(String table) {
    SparkCuckooFilter f = firstPartitions();
    Dataset<Row> data = table.equals("path") ? spark.read().parquet(byPath) : spark.table("fact_cat");
    Dataset<Row> pruned = f.prune(data, "part");
    assertEquals(2500, pruned.collectAsList().size());
    assertEquals(40, f.partitionsIn());
    assertEquals(25, f.partitionsOut());
    assertEquals(0, f.rowsIn());
    assertEquals(0, f.rowsOut());
    List<PruneMetrics> metrics = CuckooFilters.pruneMetrics(pruned);
    assertEquals(1, metrics.size(), metrics::toString);
    assertPartitions(metrics.get(0), 40, 25);
  }

  /** The one-call prune's filter is built in a subquery: a partition filter the scan evaluates (catalog or not). */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"path", "catalog"})
  void theOneCallPruneOnAPartitionColumnCountsPartitions(String table) {
    Dataset<Row> data = table.equals("path") ? spark.read().parquet(byPath) : spark.table("fact_cat");
    Dataset<Row> pruned = CuckooFilters.prune(data, spark.table("dim").where("grp = 'a'"), 0.001, "part");
    assertEquals(2500, pruned.collectAsList().size());
    List<PruneMetrics> metrics = CuckooFilters.pruneMetrics(pruned);
    assertEquals(1, metrics.size(), metrics::toString);
    assertEquals("cuckoo filter on part", metrics.get(0).name());
    assertPartitions(metrics.get(0), 40, 25);
  }

  /**
   * A probe of a data column of the same table probes its rows; a probe of the partition column after a filter of it
   * probes only the partitions that filter keeps (30 of 40), in the catalog's pruning and in the scan's alike.
   */
  @Test
  void rowsAreStillRowsAndPartitionsAreThoseProbed() {
    SparkCuckooFilter values = CuckooFilters.builder(spark.range(0, 1000).selectExpr("id AS v")).keys("v")
        .fpp(0.001).build();
    Dataset<Row> byValue = values.prune(spark.table("fact_cat"), "v");
    long kept = byValue.collectAsList().size();
    assertEquals(4000, values.rowsIn());
    assertEquals(kept, values.rowsOut());
    assertTrue(kept >= 1000 && kept < 1010, "every match and a few false positives: " + kept);
    assertEquals(0, values.partitionsIn());
    assertEquals("cuckoo filter: 4000 rows in, " + kept + " rows out", CuckooFilters.pruneMetrics(byValue).get(0)
        .toString());

    for (Dataset<Row> data : List.of(spark.table("fact_cat"), spark.read().parquet(byPath))) {
      SparkCuckooFilter f = firstPartitions();
      Dataset<Row> pruned = f.prune(data.where("part < 30"), "part");
      assertEquals(2500, pruned.collectAsList().size());
      assertEquals(30, f.partitionsIn());
      assertEquals(25, f.partitionsOut());
      assertEquals(0, f.rowsIn());
    }
  }
}
