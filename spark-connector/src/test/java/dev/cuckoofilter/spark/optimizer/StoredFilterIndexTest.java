package dev.cuckoofilter.spark.optimizer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoofilter.spark.SparkTestSession;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Registered stored filters replace the build for their table, while they are current. */
class StoredFilterIndexTest {
  static SparkSession spark;
  @TempDir
  static Path dir;
  static final String QUERY = "SELECT f.k, f.v, d.name FROM fact f JOIN dim_active d ON f.k = d.k";

  @BeforeAll
  static void start() {
    spark = SparkTestSession.builder("local[2]")
        .config("spark.sql.autoBroadcastJoinThreshold", "-1")
        .config(RuntimeFilterConf.APPLICATION_SIDE_THRESHOLD, "1KB")
        .getOrCreate();
    spark.range(0, 50_000).selectExpr("id % 25000 AS k", "id AS v").write().parquet(dir.resolve("fact").toString());
    spark.range(0, 5000).selectExpr("id * 5 AS k", "CAST(id % 10 AS INT) AS segment", "concat('d', id) AS name")
        .write().parquet(dir.resolve("dim").toString());
    spark.read().parquet(dir.resolve("fact").toString()).createOrReplaceTempView("fact");
    spark.read().parquet(dir.resolve("dim").toString()).createOrReplaceTempView("dim_all");
    spark.sql("CREATE OR REPLACE TEMP VIEW dim_active AS SELECT * FROM dim_all WHERE segment < 3");
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  static String plan(Dataset<Row> df) {
    return df.queryExecution().optimizedPlan().toString();
  }

  static List<Row> sorted(Dataset<Row> df) {
    return df.orderBy("k", "v").collectAsList();
  }

  static List<Row> withRuleOff(String sql) {
    spark.conf().set(RuntimeFilterConf.ENABLED, "false");
    try {
      return sorted(spark.sql(sql));
    } finally {
      spark.conf().unset(RuntimeFilterConf.ENABLED);
    }
  }

  @Test
  void aCurrentStoredFilterReplacesTheBuildAndAStaleOneIsIgnored() throws Exception {
    String location = dir.resolve("filters/dim_active").toUri().toString();
    StoredFilterIndex.storeIndex(spark, "dim_active", List.of("k"), location, 0.001);

    Dataset<Row> df = spark.sql(QUERY);
    String plan = plan(df);
    assertTrue(plan.contains("cuckoo_might_contain(cuckoo_filter[") && plan.contains("filters/dim_active"), plan);
    assertFalse(plan.contains("cuckoo_filter(cuckoo_key"), "no filter is built: " + plan);
    assertEquals(withRuleOff(QUERY), sorted(df));

    // New dimension rows arrive with keys the stored filter does not have (using it now would lose their
    // matches): it is stale, the rule builds instead, results stay exact.
    spark.range(5000, 5200).selectExpr("(id - 5000) * 5 + 1 AS k", "CAST(0 AS INT) AS segment", "concat('d', id) AS name")
        .write().mode(SaveMode.Append).parquet(dir.resolve("dim").toString());
    Dataset<Row> afterAppend = spark.sql(QUERY);
    String stalePlan = plan(afterAppend);
    assertFalse(stalePlan.contains("filters/dim_active"), "a stale filter is not used: " + stalePlan);
    assertTrue(stalePlan.contains("cuckoo_filter(cuckoo_key"), stalePlan);
    List<Row> expected = withRuleOff(QUERY);
    assertEquals(expected, sorted(afterAppend));
    assertTrue(expected.stream().anyMatch(r -> r.getString(2).equals("d5000")), "the new dimension rows join");

    // An incremental update with the new rows makes it current: version 2 is used.
    Dataset<Row> newRows = spark.table("dim_active").where("name >= 'd5000' AND length(name) = 5");
    assertEquals(2, StoredFilterIndex.updateIndex(spark, "dim_active",
        dev.cuckoofilter.spark.update.ChangeSet.of(newRows, newRows.limit(0), spark.table("dim_active"))).version());
    String fresh = plan(spark.sql(QUERY));
    assertTrue(fresh.contains("filters/dim_active version 2"), fresh);
    assertEquals(expected, sorted(spark.sql(QUERY)));
    // So does storing it again (a rebuild): version 3.
    assertEquals(3, StoredFilterIndex.storeIndex(spark, "dim_active", List.of("k"), location, 0.001).version());
    assertTrue(plan(spark.sql(QUERY)).contains("filters/dim_active version 3"));
  }

  @Test
  void registrationBySqlAndKeyMismatch() throws Exception {
    String location = dir.resolve("filters/by_name").toUri().toString();
    StoredFilterIndex.storeIndex(spark, "dim_active", List.of("name"), location, 0.001);
    spark.sql("SET spark.cuckoo.storedFilter.dim_active=" + location);
    // The stored filter indexes `name`, the join is on `k`: it does not apply; the rule builds one.
    String plan = plan(spark.sql(QUERY));
    assertFalse(plan.contains("filters/by_name"), plan);
    assertTrue(plan.contains("cuckoo_filter(cuckoo_key"), plan);
    String byName = "SELECT f.v, d.name FROM (SELECT v, concat('d', v % 5000) AS name FROM fact) f "
        + "JOIN dim_active d ON f.name = d.name";
    Dataset<Row> df = spark.sql(byName);
    assertTrue(plan(df).contains("filters/by_name"), plan(df));
    spark.conf().set(RuntimeFilterConf.ENABLED, "false");
    List<Row> expected = spark.sql(byName).orderBy("v").collectAsList();
    spark.conf().unset(RuntimeFilterConf.ENABLED);
    assertEquals(expected, df.orderBy("v").collectAsList());
    spark.conf().unset(StoredFilterIndex.PREFIX + "dim_active");
  }

  @Test
  void onlyFileBasedTablesCanBeIndexed() {
    spark.range(10).createOrReplaceTempView("not_files");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> StoredFilterIndex.storeIndex(
        spark, "not_files", List.of("id"), dir.resolve("filters/x").toUri().toString(), 0.01));
    assertTrue(e.getMessage().contains("file-based"), e.getMessage());
  }
}
