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
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The fingerprint of a stored filter's table sees all of its definition, however long the plan's text. */
class StoredFilterIndexPlanTextTest {
  static SparkSession spark;
  @TempDir
  static Path dir;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.builder("local[2]")
        .config("spark.sql.autoBroadcastJoinThreshold", "-1")
        .config(RuntimeFilterConf.APPLICATION_SIDE_THRESHOLD, "1KB")
        .getOrCreate();
    spark.range(0, 50_000).selectExpr("id % 10000 AS k", "id AS v").write().parquet(dir.resolve("fact").toString());
    // Columns c1 to c27, all 0 but c26 (1 for even ids) and c27 (1 for odd ids).
    List<String> columns = new java.util.ArrayList<>(List.of("id * 5 AS k"));
    for (int i = 1; i <= 25; i++) {
      columns.add("0 AS c" + i);
    }
    columns.add("CAST(id % 2 = 0 AS INT) AS c26");
    columns.add("CAST(id % 2 = 1 AS INT) AS c27");
    spark.range(0, 2000).selectExpr(columns.toArray(new String[0])).write().parquet(dir.resolve("wide").toString());
    spark.read().parquet(dir.resolve("fact").toString()).createOrReplaceTempView("fact");
    spark.read().parquet(dir.resolve("wide").toString()).createOrReplaceTempView("wide");
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  /** {@code array_contains(array(c1, ..., c25, c<last>), 1)}: 26 arguments, more than Spark prints (spark.sql.debug.maxToStringFields). */
  private static String view(int last) {
    return "CREATE OR REPLACE TEMP VIEW wide_active AS SELECT * FROM wide WHERE array_contains(array("
        + IntStream.rangeClosed(1, 25).mapToObj(i -> "c" + i).collect(Collectors.joining(", ")) + ", c" + last
        + "), 1)";
  }

  /**
   * A view redefined over the same files with a condition on many columns, changed past the arguments that an
   * expression's text prints (Spark prints 24 of them, then "... 2 more fields"), selects other rows under the same
   * text: the filter of the old rows must not be used.
   */
  @Test
  void aViewRedefinedPastThePrintedArgumentsOfItsConditionDoesNotUseTheFilterOfItsOldDefinition() throws Exception {
    String query = "SELECT f.k, f.v FROM fact f JOIN wide_active d ON f.k = d.k";
    spark.sql(view(26)); // even ids
    StoredFilterIndex.storeIndex(spark, "wide_active", List.of("k"), dir.resolve("filters/wide").toUri().toString(),
        0.001);
    spark.conf().set(RuntimeFilterConf.FORCE, "true");
    try {
      Dataset<Row> current = spark.sql(query);
      assertTrue(plan(current).contains("filters/wide"), "used while current: " + plan(current));
      assertEquals(withRuleOff(query), sorted(current));
      spark.sql(view(27)); // odd ids: other rows over the same files
      List<Row> expected = withRuleOff(query);
      assertEquals(5000, expected.size(), "1,000 odd dimension keys below 10,000 match 5 fact rows each");
      Dataset<Row> redefined = spark.sql(query);
      List<Row> rows = sorted(redefined);
      assertEquals(expected.size(), rows.size(), "rows of the redefined view's join");
      assertEquals(expected, rows);
      assertFalse(plan(redefined).contains("filters/wide"), "a stale filter is not used: " + plan(redefined));
    } finally {
      spark.conf().unset(RuntimeFilterConf.FORCE);
      spark.conf().unset(StoredFilterIndex.PREFIX + "wide_active");
    }
  }

  /**
   * Spark prints a string literal without its quotes, so {@code name IN ('d1,d2', 'd8')} and {@code name IN ('d1',
   * 'd2', 'd8')} have the same canonical text, {@code none#1 IN (d8,d1,d2)} (the list ordered by the values' hash
   * codes): a view redefined from the one (1 row) to the other (3 rows) over the same files must not use the filter
   * of its old row (it was used, and the join returned 5 of 15 rows).
   */
  @Test
  void aViewRedefinedWithStringLiteralsPrintedAlikeDoesNotUseTheFilterOfItsOldDefinition() throws Exception {
    spark.range(0, 2000).selectExpr("id * 5 AS k", "concat('d', id) AS name").write()
        .parquet(dir.resolve("named").toString());
    spark.read().parquet(dir.resolve("named").toString()).createOrReplaceTempView("named");
    String query = "SELECT f.k, f.v FROM fact f JOIN named_few d ON f.k = d.k";
    spark.sql("CREATE OR REPLACE TEMP VIEW named_few AS SELECT * FROM named WHERE name IN ('d1,d2', 'd8')");
    StoredFilterIndex.storeIndex(spark, "named_few", List.of("k"), dir.resolve("filters/named").toUri().toString(),
        0.001);
    spark.conf().set(RuntimeFilterConf.FORCE, "true");
    try {
      Dataset<Row> current = spark.sql(query);
      assertTrue(plan(current).contains("filters/named"), "used while current: " + plan(current));
      assertEquals(withRuleOff(query), sorted(current));
      spark.sql("CREATE OR REPLACE TEMP VIEW named_few AS SELECT * FROM named WHERE name IN ('d1', 'd2', 'd8')");
      List<Row> expected = withRuleOff(query);
      assertEquals(15, expected.size(), "keys 5, 10 and 40 match 5 fact rows each");
      Dataset<Row> redefined = spark.sql(query);
      List<Row> rows = sorted(redefined);
      assertEquals(expected.size(), rows.size(), "rows of the redefined view's join");
      assertEquals(expected, rows);
      assertFalse(plan(redefined).contains("filters/named"), "a stale filter is not used: " + plan(redefined));
      // Defined as it was indexed again, its values in another order: current again.
      spark.sql("CREATE OR REPLACE TEMP VIEW named_few AS SELECT * FROM named WHERE name IN ('d8', 'd1,d2')");
      Dataset<Row> again = spark.sql(query);
      assertTrue(plan(again).contains("filters/named"), "the indexed definition: " + plan(again));
      assertEquals(withRuleOff(query), sorted(again));
    } finally {
      spark.conf().unset(RuntimeFilterConf.FORCE);
      spark.conf().unset(StoredFilterIndex.PREFIX + "named_few");
    }
  }

  /**
   * Spark prints a timestamp value in the session time zone: {@code TIMESTAMP'2024-01-01 00:00:00'} of a view defined
   * in UTC and the same text of a view defined in New York (five hours later) print alike where each is planned, though
   * they select other rows of a table reading no timestamps (epoch seconds, cast). The view redefined in New York
   * selects 5 more keys than the filter stored in UTC holds.
   */
  @Test
  void aViewRedefinedWithATimestampOfAnotherZonePrintedAlikeDoesNotUseTheFilterOfItsOldDefinition() throws Exception {
    // Hourly events around 2024-01-01 00:00 UTC: ids 0-99 before it, 100-199 from it.
    spark.range(0, 200).selectExpr("id * 5 AS k", "1704067200 + (id - 100) * 3600 AS epoch").write()
        .parquet(dir.resolve("hourly").toString());
    String cutoff = "CAST(epoch AS TIMESTAMP) < TIMESTAMP'2024-01-01 00:00:00'";
    String query = "SELECT f.k, f.v FROM fact f JOIN hourly_early d ON f.k = d.k";
    spark.read().parquet(dir.resolve("hourly").toString()).where(cutoff).createOrReplaceTempView("hourly_early");
    StoredFilterIndex.storeIndex(spark, "hourly_early", List.of("k"), dir.resolve("filters/hourly").toUri().toString(),
        0.001);
    spark.conf().set(RuntimeFilterConf.FORCE, "true");
    try {
      Dataset<Row> current = spark.sql(query);
      assertTrue(plan(current).contains("filters/hourly"), "used while current: " + plan(current));
      assertEquals(withRuleOff(query), sorted(current));
      spark.conf().set("spark.sql.session.timeZone", "America/New_York");
      spark.read().parquet(dir.resolve("hourly").toString()).where(cutoff).createOrReplaceTempView("hourly_early");
      List<Row> expected = withRuleOff(query);
      assertEquals(525, expected.size(), "ids 0 to 104 match 5 fact rows each");
      Dataset<Row> redefined = spark.sql(query);
      List<Row> rows = sorted(redefined);
      assertEquals(expected.size(), rows.size(), "rows of the redefined view's join");
      assertEquals(expected, rows);
      assertFalse(plan(redefined).contains("filters/hourly"), "a stale filter is not used: " + plan(redefined));
    } finally {
      spark.conf().set("spark.sql.session.timeZone", "UTC");
      spark.conf().unset(RuntimeFilterConf.FORCE);
      spark.conf().unset(StoredFilterIndex.PREFIX + "hourly_early");
    }
  }

  /**
   * Spark prints a cast that reads a time in a time zone without its zone: {@code CAST(ts_text AS TIMESTAMP)} of a view
   * defined in UTC and of one defined in New York print alike, though the second reads each text as an instant five
   * hours later, and a condition comparing it with another column (epoch seconds, cast) selects 5 more keys.
   */
  @Test
  void aViewRedefinedWithACastReadingTimesInAnotherZoneDoesNotUseTheFilterOfItsOldDefinition() throws Exception {
    // Hourly events around 2024-01-01 00:00 UTC, each with the same local time text.
    spark.range(0, 200).selectExpr("id * 5 AS k", "1704067200 + (id - 100) * 3600 AS epoch",
        "'2024-01-01 00:00:00' AS ts_text").write().parquet(dir.resolve("texts").toString());
    String since = "CAST(ts_text AS TIMESTAMP) >= CAST(epoch AS TIMESTAMP)";
    String query = "SELECT f.k, f.v FROM fact f JOIN texts_past d ON f.k = d.k";
    spark.read().parquet(dir.resolve("texts").toString()).where(since).createOrReplaceTempView("texts_past");
    StoredFilterIndex.storeIndex(spark, "texts_past", List.of("k"), dir.resolve("filters/texts").toUri().toString(),
        0.001);
    spark.conf().set(RuntimeFilterConf.FORCE, "true");
    try {
      Dataset<Row> current = spark.sql(query);
      assertTrue(plan(current).contains("filters/texts"), "used while current: " + plan(current));
      assertEquals(withRuleOff(query), sorted(current));
      spark.conf().set("spark.sql.session.timeZone", "America/New_York");
      spark.read().parquet(dir.resolve("texts").toString()).where(since).createOrReplaceTempView("texts_past");
      List<Row> expected = withRuleOff(query);
      assertEquals(530, expected.size(), "ids 0 to 105 match 5 fact rows each");
      Dataset<Row> redefined = spark.sql(query);
      List<Row> rows = sorted(redefined);
      assertEquals(expected.size(), rows.size(), "rows of the redefined view's join");
      assertEquals(expected, rows);
      assertFalse(plan(redefined).contains("filters/texts"), "a stale filter is not used: " + plan(redefined));
    } finally {
      spark.conf().set("spark.sql.session.timeZone", "UTC");
      spark.conf().unset(RuntimeFilterConf.FORCE);
      spark.conf().unset(StoredFilterIndex.PREFIX + "texts_past");
    }
  }
}
