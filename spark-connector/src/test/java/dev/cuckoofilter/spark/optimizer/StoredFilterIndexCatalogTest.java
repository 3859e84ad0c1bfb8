package dev.cuckoofilter.spark.optimizer;

import static dev.cuckoofilter.spark.optimizer.RuleOnOff.plan;
import static dev.cuckoofilter.spark.optimizer.RuleOnOff.sorted;
import static dev.cuckoofilter.spark.optimizer.RuleOnOff.withRuleOff;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoofilter.spark.SparkTestSession;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.plans.logical.Join;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Stored filters of catalog tables: partitioned ones (partitions tracked by the catalog) and views over them. */
class StoredFilterIndexCatalogTest {
  static SparkSession spark;
  @TempDir
  static Path dir;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.builder("local[2]")
        .config("spark.sql.autoBroadcastJoinThreshold", "-1")
        .config(RuntimeFilterConf.APPLICATION_SIDE_THRESHOLD, "1KB")
        .config("spark.sql.warehouse.dir", dir.resolve("warehouse").toUri().toString())
        .getOrCreate();
    spark.range(0, 50_000).selectExpr("id % 25000 AS k", "id AS v").write().saveAsTable("fact");
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  static void assertServed(String query, String filter) {
    Dataset<Row> df = spark.sql(query);
    String plan = plan(df);
    assertTrue(plan.contains(filter), "the stored filter " + filter + " is used: " + plan);
    assertFalse(plan.contains("cuckoo_filter(cuckoo_key"), "no filter is built: " + plan);
    assertEquals(withRuleOff(query), sorted(df));
  }

  /** The stale stored filter is not used (a filter of the whole table is not built either: it selects no rows). */
  static void assertStale(String query, String filter) {
    Dataset<Row> df = spark.sql(query);
    String plan = plan(df);
    assertFalse(plan.contains(filter), "the stored filter " + filter + " is not used: " + plan);
    assertEquals(withRuleOff(query), sorted(df));
  }

  /**
   * Until 2026-11-29 a partitioned catalog table could not be indexed ("it is not a file-based table whose data
   * can be fingerprinted"), and a view over some of its partitions, which could, was never served: the join side
   * read through the catalog's index, the registered view through its selected partitions' files.
   */
  @Test
  void aPartitionedTableAndAViewOverSomeOfItsPartitions() throws Exception {
    spark.range(0, 5000).selectExpr("id * 5 AS k", "concat('d', id) AS name", "CAST(id % 10 AS INT) AS segment")
        .write().partitionBy("segment").saveAsTable("dim_part");
    spark.sql("CREATE OR REPLACE TEMP VIEW dim_part_active AS SELECT * FROM dim_part WHERE segment < 3");
    String table = "SELECT f.k, f.v, d.name FROM fact f JOIN dim_part d ON f.k = d.k";
    String view = "SELECT f.k, f.v, d.name FROM fact f JOIN dim_part_active d ON f.k = d.k";
    String tableFilter = "filters/dim_part version ";
    String viewFilter = "filters/dim_part_active version ";
    StoredFilterIndex.storeIndex(spark, "dim_part", List.of("k"), dir.resolve("filters/dim_part").toUri().toString(),
        0.001);
    StoredFilterIndex.storeIndex(spark, "dim_part_active", List.of("k"),
        dir.resolve("filters/dim_part_active").toUri().toString(), 0.001);
    try {
      assertServed(table, tableFilter + 1);
      assertServed(view, viewFilter + 1);

      // Rows in a partition the view does not read: the table's filter is stale, the view's is not.
      spark.sql("INSERT INTO dim_part SELECT id * 5 + 1, concat('n', id), 7 FROM range(0, 100)");
      assertStale(table, tableFilter);
      assertServed(view, viewFilter + 1);
      assertTrue(withRuleOff(table).stream().anyMatch(r -> r.getString(2).equals("n0")), "the new rows join");

      // Rows in a partition it reads: stale too, and its joins find them.
      spark.sql("INSERT INTO dim_part SELECT id * 5 + 2, concat('m', id), 1 FROM range(0, 100)");
      assertStale(view, viewFilter);
      assertTrue(plan(spark.sql(view)).contains("cuckoo_filter(cuckoo_key"), "a filter of the view is built instead");
      assertTrue(withRuleOff(view).stream().anyMatch(r -> r.getString(2).equals("m0")), "the new rows join");

      // A partition the catalog adds at a location of its own (files written elsewhere, ALTER TABLE ADD PARTITION).
      StoredFilterIndex.storeIndex(spark, "dim_part", List.of("k"), dir.resolve("filters/dim_part").toUri().toString(),
          0.001);
      assertServed(table, tableFilter + 2);
      String added = dir.resolve("added/segment=20").toUri().toString();
      spark.range(0, 100).selectExpr("id * 5 + 3 AS k", "concat('a', id) AS name").write().parquet(added);
      spark.sql("ALTER TABLE dim_part ADD PARTITION (segment = 20) LOCATION '" + added + "'");
      assertStale(table, tableFilter);
      assertTrue(withRuleOff(table).stream().anyMatch(r -> r.getString(2).equals("a0")), "the added rows join");

      // An incremental update brings it up to date.
      Dataset<Row> addedRows = spark.table("dim_part").where("segment = 20");
      StoredFilterIndex.updateIndex(spark, "dim_part",
          dev.cuckoofilter.spark.update.ChangeSet.of(addedRows, addedRows.limit(0), spark.table("dim_part")));
      assertServed(table, tableFilter + 3);

      // A dropped partition is a change too (the filter holds keys the table no longer has: stale, not wrong).
      spark.sql("ALTER TABLE dim_part DROP PARTITION (segment = 9)");
      assertStale(table, tableFilter);
    } finally {
      spark.conf().unset(StoredFilterIndex.PREFIX + "dim_part");
      spark.conf().unset(StoredFilterIndex.PREFIX + "dim_part_active");
    }
  }

  /**
   * Spark leaves the size of a partitioned catalog table without statistics unknown until it prunes its
   * partitions, after the rule: the rule lists the partitions its filters select to size it, so such a table is
   * a side to build a filter from, and a partitioned fact table a side to prune.
   */
  @Test
  void partitionedTablesWithoutStatisticsAreSizedFromTheirFiles() {
    spark.range(0, 5000).selectExpr("id * 5 AS k", "concat('p', id) AS name", "CAST(id % 10 AS INT) AS segment")
        .write().partitionBy("segment").saveAsTable("dim_sized");
    spark.range(0, 50_000).selectExpr("id % 25000 AS k", "id AS v", "CAST(id % 50 AS INT) AS day")
        .write().partitionBy("day").saveAsTable("fact_part");
    assertTrue(spark.table("dim_sized").queryExecution().analyzed().stats().sizeInBytes()
        .equals(scala.math.BigInt.apply(Long.MAX_VALUE)), "Spark's estimate is unknown");
    String query = "SELECT f.k, f.v, d.name FROM fact_part f JOIN dim_sized d ON f.k = d.k WHERE d.segment < 2";
    Dataset<Row> df = spark.sql(query);
    Join join = StoredFilterIndexTest.firstJoin(df);
    assertTrue(join.left().treeString().contains("cuckoo_filter(cuckoo_key"), "the fact side is pruned: " + plan(df));
    assertFalse(join.right().treeString().contains("cuckoo_might_contain"), "the dimension is not: " + plan(df));
    assertEquals(withRuleOff(query), sorted(df));
    // A selection of the fact table's partitions smaller than the dimension is not pruned.
    String fewDays = "SELECT f.k, f.v, d.name FROM fact_part f JOIN dim_sized d ON f.k = d.k "
        + "WHERE d.segment < 9 AND f.day = 0";
    Dataset<Row> few = spark.sql(fewDays);
    assertFalse(StoredFilterIndexTest.firstJoin(few).left().treeString().contains("cuckoo_might_contain"), plan(few));
    assertEquals(withRuleOff(fewDays), sorted(few));
  }

  /**
   * Sizing a partitioned catalog table without statistics lists its selected partitions' files. The rule sized each
   * side of a join twice, once as the side to prune and once as the side to build from, and so listed those files
   * twice (counted as files listed or served by Spark's file status cache: 2 x the table's files) while planning the
   * query; it now sizes each side of a join once.
   */
  @Test
  void sizingAJoinListsEachSidesPartitionsOnce() {
    spark.range(0, 5000).selectExpr("id * 5 AS k", "concat('o', id) AS name", "CAST(id % 10 AS INT) AS segment")
        .write().partitionBy("segment").saveAsTable("dim_once");
    int files = spark.table("dim_once").inputFiles().length;
    assertTrue(files >= 10, "a file per partition at least: " + files);
    String query = "SELECT f.k, f.v, d.name FROM dim_once d JOIN fact f ON f.k = d.k";
    spark.sql(query).queryExecution().optimizedPlan(); // both tables' relations resolved (and cached) once
    long before = listedFiles();
    ruleOff(() -> spark.sql(query).queryExecution().optimizedPlan());
    long off = listedFiles() - before;
    before = listedFiles();
    spark.sql(query).queryExecution().optimizedPlan();
    long on = listedFiles() - before;
    assertEquals(files, on - off, "the files of dim_once listed to size it (rule on: " + on + ", off: " + off + ")");
  }

  /** Files listed so far, from the file system or Spark's file status cache. */
  static long listedFiles() {
    return org.apache.spark.metrics.source.HiveCatalogMetrics.METRIC_FILES_DISCOVERED().getCount()
        + org.apache.spark.metrics.source.HiveCatalogMetrics.METRIC_FILE_CACHE_HITS().getCount();
  }

  private static void ruleOff(Runnable run) {
    spark.conf().set(RuntimeFilterConf.ENABLED, "false");
    try {
      run.run();
    } finally {
      spark.conf().unset(RuntimeFilterConf.ENABLED);
    }
  }

  /**
   * Whether the stored filter of a whole partitioned catalog table is current lists the table's files (its
   * fingerprint). The fingerprint listed them twice: the index of the catalog's partitions listed them as it was built
   * (from Spark's file status cache), and refreshing it, to see files changed since they were cached, listed them
   * again (from the file system). Planning a join with the table (20 files) listed 3 x its files: 20 from the file
   * system and 40 from the cache (20 of them to size the side); now 20 and 20, and the fingerprint is the one stored.
   */
  @Test
  void theFingerprintListsAPartitionedTablesFilesOnce() throws Exception {
    spark.range(0, 5000).selectExpr("id * 5 AS k", "concat('l', id) AS name", "CAST(id % 10 AS INT) AS segment")
        .write().partitionBy("segment").saveAsTable("dim_listed");
    int files = spark.table("dim_listed").inputFiles().length;
    assertTrue(files >= 10, "a file per partition at least: " + files);
    String location = dir.resolve("filters/dim_listed").toUri().toString();
    dev.cuckoofilter.spark.store.FilterVersion version = StoredFilterIndex.storeIndex(spark, "dim_listed",
        List.of("k"), location, 0.001);
    String recorded = dev.cuckoofilter.spark.store.FilterStore.open(location, spark).metadata(version.version())
        .properties().get(StoredFilterIndex.FINGERPRINT);
    String query = "SELECT f.k, f.v, d.name FROM fact f JOIN dim_listed d ON f.k = d.k";
    try {
      spark.sql(query).queryExecution().optimizedPlan(); // both tables' relations resolved (and cached) once
      org.apache.spark.metrics.source.HiveCatalogMetrics.reset();
      Dataset<Row> df = spark.sql(query);
      df.queryExecution().optimizedPlan();
      long discovered = org.apache.spark.metrics.source.HiveCatalogMetrics.METRIC_FILES_DISCOVERED().getCount();
      long cached = org.apache.spark.metrics.source.HiveCatalogMetrics.METRIC_FILE_CACHE_HITS().getCount();
      long jobs = org.apache.spark.metrics.source.HiveCatalogMetrics.METRIC_PARALLEL_LISTING_JOB_COUNT().getCount();
      assertEquals(files, discovered, "the fingerprint lists the files from the file system, once");
      assertEquals(files, cached, "sizing the side lists them from the file status cache, once; nothing else does");
      assertEquals(0, jobs, "no parallel listing");
      assertTrue(plan(df).contains("filters/dim_listed version 1"), "the stored filter is used: " + plan(df));
      org.apache.spark.sql.catalyst.plans.logical.LogicalPlan registered = StoredFilterIndex.planned(spark,
          "dim_listed");
      assertEquals(recorded, StoredFilterIndex.fingerprint(registered, List.of("k")));
      // The same as a fingerprint of the table read through an index of all its partitions, refreshed (as before).
      assertEquals(recorded, StoredFilterIndex.fingerprint(PartitionedCatalogTables.listed(registered), List.of("k")));
      assertServed(query, "filters/dim_listed version 1");
    } finally {
      spark.conf().unset(StoredFilterIndex.PREFIX + "dim_listed");
    }
  }

  /**
   * Sizing a side runs Spark's partition pruning on a copy of it, without the side's cuckoo filter probes: a probe
   * of a partition column is evaluated on the driver for each partition when Spark prunes the query's partitions
   * with it, and sizing evaluated it again each time the rule sized the side (40 more evaluations each, for 40
   * partitions), loading a filter meant for the executors into the driver.
   */
  @Test
  void sizingASideDoesNotEvaluateItsProbesOfPartitionColumns() {
    spark.range(0, 20_000).selectExpr("id % 10000 AS k", "id AS v", "CAST(id % 40 AS INT) AS day")
        .write().partitionBy("day").saveAsTable("fact_probed");
    dev.cuckoofilter.spark.SparkCuckooFilter days = dev.cuckoofilter.spark.CuckooFilters
        .builder(spark.range(0, 10).selectExpr("CAST(id AS INT) AS day")).keys("day").fpp(0.001).build();
    Dataset<Row> pruned = days.prune(spark.table("fact_probed"), "day");
    org.apache.spark.sql.catalyst.plans.logical.LogicalPlan side = org.apache.spark.sql.catalyst.analysis
        .EliminateSubqueryAliases$.MODULE$.apply(pruned.queryExecution().analyzed()); // as the rule sees it
    long before = days.rowsIn();
    long partitionsBefore = days.partitionsIn();
    long bytes = CuckooRuntimeFilterRule.estimatedBytes(side);
    assertEquals(before, days.rowsIn(), "probes evaluated to size the side");
    assertEquals(partitionsBefore, days.partitionsIn(), "probes evaluated to size the side");
    assertTrue(bytes > 0 && bytes < Long.MAX_VALUE, "sized from its files: " + bytes);
    // Spark's own pruning of the query's partitions evaluates it, once per partition (counted as partitions).
    pruned.queryExecution().optimizedPlan();
    assertEquals(partitionsBefore + 40, days.partitionsIn());
    assertEquals(before, days.rowsIn());
  }

  /**
   * A partition's rows hold the value the catalog gives the partition, not one its files or their path hold: renaming
   * a partition of an external table (ALTER TABLE ... PARTITION ... RENAME TO PARTITION, which leaves its files where
   * they are) changes the rows' partition column and no file. The fingerprint listed files only, so a stored filter of
   * keys that include the partition column stayed current, and a join on the keys returned 1,501 of its
   * 2,000 rows (the renamed partition's 500 lost).
   */
  @Test
  void aRenamedPartitionOfAnExternalTableIsAChange() throws Exception {
    spark.range(0, 40_000).selectExpr("id % 2000 * 5 AS k", "id AS v", "CAST(id / 2000 AS INT) AS day")
        .write().saveAsTable("fact_days"); // each key on each of 20 days
    spark.sql("CREATE TABLE dim_days (k BIGINT, name STRING, day INT) USING parquet PARTITIONED BY (day) LOCATION '"
        + dir.resolve("dim_days").toUri() + "'");
    spark.sql("INSERT INTO dim_days SELECT id * 5, concat('d', id), CAST(id % 4 AS INT) FROM range(0, 2000)");
    String query = "SELECT f.k, f.v, d.name FROM fact_days f JOIN dim_days d ON f.k = d.k AND f.day = d.day";
    String filter = "filters/dim_days version ";
    StoredFilterIndex.storeIndex(spark, "dim_days", List.of("k", "day"),
        dir.resolve("filters/dim_days").toUri().toString(), 0.001);
    try {
      assertServed(query, filter + 1);
      assertEquals(2000, spark.sql(query).count());
      spark.sql("ALTER TABLE dim_days PARTITION (day = 3) RENAME TO PARTITION (day = 7)");
      assertEquals(500, spark.sql("SELECT * FROM dim_days WHERE day = 7").count(), "the partition's rows moved");
      assertStale(query, filter);
      assertEquals(2000, withRuleOff(query).size(), "the renamed rows join");
    } finally {
      spark.conf().unset(StoredFilterIndex.PREFIX + "dim_days");
    }
  }

  /**
   * A partitioned fact table joined on its partition column (where Spark's dynamic partition pruning applies too)
   * and on a data column too, under adaptive execution, without statistics and then with ANALYZE statistics and the
   * cost-based optimizer (the rule then sizes the sides from their row counts): the fact side is pruned, and the joins
   * return the rule-off joins' rows.
   */
  @Test
  void aPartitionedFactTableUnderAdaptiveExecutionWithAndWithoutStatistics() {
    spark.range(0, 40_000).selectExpr("id % 20000 AS k", "id AS v", "CAST(id % 40 AS INT) AS day")
        .write().partitionBy("day").saveAsTable("fact_aqe");
    spark.range(0, 4000).selectExpr("id * 5 AS k", "concat('d', id) AS name", "CAST(id % 40 AS INT) AS day",
        "id % 7 AS g").write().saveAsTable("dim_aqe");
    List<String> queries = List.of(
        "SELECT f.k, f.v, d.name FROM fact_aqe f JOIN dim_aqe d ON f.day = d.day WHERE d.g = 1 AND d.k < 300",
        "SELECT f.k, f.v, d.name FROM fact_aqe f JOIN dim_aqe d ON f.day = d.day AND f.k = d.k WHERE d.g = 1");
    spark.conf().set("spark.sql.adaptive.enabled", "true");
    spark.conf().set("spark.sql.optimizer.dynamicPartitionPruning.reuseBroadcastOnly", "false");
    try {
      for (boolean analyzed : new boolean[] {false, true}) {
        if (analyzed) {
          spark.sql("ANALYZE TABLE fact_aqe COMPUTE STATISTICS FOR ALL COLUMNS");
          spark.sql("ANALYZE TABLE dim_aqe COMPUTE STATISTICS FOR ALL COLUMNS");
          spark.conf().set("spark.sql.cbo.enabled", "true");
        }
        for (String query : queries) {
          Dataset<Row> df = spark.sql(query);
          Join join = StoredFilterIndexTest.firstJoin(df);
          assertTrue(join.left().treeString().contains("cuckoo_filter(cuckoo_key"), "the fact side is pruned: "
              + plan(df));
          assertTrue(df.queryExecution().executedPlan().toString().contains("dynamicpruning"),
              "dynamic partition pruning applies too: " + df.queryExecution().executedPlan());
          List<Row> expected = withRuleOff(query);
          assertFalse(expected.isEmpty());
          assertEquals(expected, sorted(df), (analyzed ? "with" : "without") + " statistics: " + query);
        }
      }
    } finally {
      spark.conf().set("spark.sql.adaptive.enabled", "false"); // the session's setting (unset would turn it on)
      spark.conf().unset("spark.sql.optimizer.dynamicPartitionPruning.reuseBroadcastOnly");
      spark.conf().unset("spark.sql.cbo.enabled");
    }
  }

  /**
   * Spark pads a CHAR(n) column of a catalog table to its length as it reads it (spark.sql.readSideCharPadding, on by
   * default), a computed column to the fingerprint: storeIndex refused a CHAR key column as "not computed, missing or
   * ambiguous", though the table names it plainly. The refusal now says it is the padding, and how to index it.
   */
  @Test
  void aCharKeyColumnIsRefusedNamingItsPadding() throws Exception {
    spark.sql("CREATE TABLE dim_char (c CHAR(5), name STRING, segment INT) USING parquet PARTITIONED BY (segment)");
    spark.sql("INSERT INTO dim_char SELECT concat('c', id), concat('d', id), CAST(id % 3 AS INT) FROM range(0, 300)");
    String location = dir.resolve("filters/dim_char").toUri().toString();
    IllegalArgumentException refused = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> StoredFilterIndex.storeIndex(spark, "dim_char", List.of("c"), location, 0.001));
    assertTrue(refused.getMessage().contains("c is a CHAR(5) column, which Spark pads to its length as it reads it "
        + "(spark.sql.readSideCharPadding)"), refused.getMessage());
    // Read without the padding, the column is the files' values: indexed, and never used where the query pads it.
    spark.range(0, 20_000).selectExpr("concat('c', id % 500) AS c", "id AS v").write().saveAsTable("fact_char");
    String query = "SELECT f.c AS k, f.v, d.name FROM fact_char f JOIN dim_char d ON f.c = d.c";
    spark.conf().set("spark.sql.readSideCharPadding", "false");
    try {
      StoredFilterIndex.storeIndex(spark, "dim_char", List.of("c"), location, 0.001);
      assertServed(query, "filters/dim_char version 1");
      spark.conf().unset("spark.sql.readSideCharPadding");
      spark.catalog().refreshTable("dim_char"); // the session's cached relation of the table is the unpadded one
      assertStale(query, "filters/dim_char");
    } finally {
      spark.conf().unset("spark.sql.readSideCharPadding");
      spark.conf().unset(StoredFilterIndex.PREFIX + "dim_char");
    }
  }

  /**
   * A cached table (CACHE TABLE) is read from its cache, a copy of its rows as they were when cached that the
   * fingerprint of its files cannot describe: storeIndex refused it, and a view over it, as "not a file-based table
   * whose data can be fingerprinted", of a Parquet table. The refusal now says it is the cache.
   */
  @Test
  void aCachedTableIsRefusedNamingTheCache() throws Exception {
    spark.range(0, 5000).selectExpr("id * 5 AS k", "concat('d', id) AS name").write().saveAsTable("dim_cached");
    spark.sql("CREATE OR REPLACE TEMP VIEW dim_cached_low AS SELECT * FROM dim_cached WHERE k < 1000");
    String location = dir.resolve("filters/dim_cached").toUri().toString();
    spark.sql("CACHE TABLE dim_cached");
    try {
      for (String table : List.of("dim_cached", "dim_cached_low")) {
        IllegalArgumentException refused = org.junit.jupiter.api.Assertions.assertThrows(
            IllegalArgumentException.class, () -> StoredFilterIndex.storeIndex(spark, table, List.of("k"), location,
                0.001));
        assertTrue(refused.getMessage().contains("it reads cached data (CACHE TABLE or Dataset.cache"),
            refused.getMessage());
      }
      spark.sql("UNCACHE TABLE dim_cached");
      StoredFilterIndex.storeIndex(spark, "dim_cached", List.of("k"), location, 0.001);
      assertServed("SELECT f.k, f.v, d.name FROM fact f JOIN dim_cached d ON f.k = d.k", "filters/dim_cached version 1");
    } finally {
      spark.sql("UNCACHE TABLE IF EXISTS dim_cached");
      spark.conf().unset(StoredFilterIndex.PREFIX + "dim_cached");
    }
  }

  @Test
  void aTableWithoutPartitions() throws Exception {
    spark.range(0, 5000).selectExpr("id * 5 AS k", "concat('d', id) AS name", "CAST(id % 10 AS INT) AS segment")
        .write().saveAsTable("dim_flat");
    String query = "SELECT f.k, f.v, d.name FROM fact f JOIN dim_flat d ON f.k = d.k";
    StoredFilterIndex.storeIndex(spark, "dim_flat", List.of("k"), dir.resolve("filters/dim_flat").toUri().toString(),
        0.001);
    try {
      assertServed(query, "filters/dim_flat");
    } finally {
      spark.conf().unset(StoredFilterIndex.PREFIX + "dim_flat");
    }
  }
}
