package dev.cuckoofilter.spark;

import static org.apache.spark.sql.functions.col;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoofilter.spark.prune.JoinPruning;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Pruned joins return exactly what unpruned joins return, for every key type and allowed join type. */
class PruningTest {
  static SparkSession spark;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.local();
    // Big side: keys 0..29999 with duplicates (each key twice) and null keys; small side: every 7th key,
    // also duplicated, plus keys the big side does not have, plus null keys.
    spark.sql("CREATE OR REPLACE TEMP VIEW big AS SELECT CASE WHEN id % 101 = 0 THEN NULL ELSE id % 15000 END AS id, "
        + "id AS payload FROM range(0, 30000)");
    spark.sql("CREATE OR REPLACE TEMP VIEW small AS SELECT CASE WHEN id % 53 = 0 THEN NULL ELSE id * 7 END AS id, "
        + "id AS info FROM range(0, 2500) UNION ALL SELECT id * 7 AS id, -id AS info FROM range(0, 300)");
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  /** Each key type as an expression of the integer id (null stays null). */
  static String typed(String type) {
    switch (type) {
      case "long": return "id";
      case "int": return "CAST(id AS INT)";
      case "short": return "CAST(id AS SMALLINT)";
      case "byte": return "CAST(id % 100 AS TINYINT)";
      case "string": return "concat('k', id)";
      case "binary": return "encode(concat('k', id), 'utf-8')";
      case "date": return "date_add(DATE'2000-01-01', CAST(id AS INT))";
      case "timestamp": return "timestamp_micros(id * 1000)";
      case "decimal": return "CAST(id / 10 AS DECIMAL(12, 1))";
      default: throw new IllegalArgumentException(type);
    }
  }

  /** The rows as sorted strings (byte arrays rendered as hex, so equal rows render equally). */
  static List<String> sorted(Dataset<Row> df) {
    List<String> rows = new ArrayList<>();
    for (Row r : df.collectAsList()) {
      StringBuilder sb = new StringBuilder();
      for (int i = 0; i < r.size(); i++) {
        Object v = r.get(i);
        sb.append(v instanceof byte[] ? java.util.HexFormat.of().formatHex((byte[]) v) : String.valueOf(v)).append('|');
      }
      rows.add(sb.toString());
    }
    Collections.sort(rows);
    return rows;
  }

  /** {@code df}, after checking that its plan prunes with a cuckoo filter (equal results alone would pass without). */
  static Dataset<Row> probed(Dataset<Row> df) {
    String plan = df.queryExecution().optimizedPlan().toString();
    assertTrue(plan.contains("cuckoo_might_contain("), "no cuckoo filter probe in the plan: " + plan);
    return df;
  }

  @ParameterizedTest
  @ValueSource(strings = {"long", "int", "short", "byte", "string", "binary", "date", "timestamp", "decimal"})
  void prunedJoinsEqualUnprunedOnesForEveryKeyType(String type) {
    Dataset<Row> big = spark.sql("SELECT " + typed(type) + " AS key, payload FROM big");
    Dataset<Row> small = spark.sql("SELECT " + typed(type) + " AS key, info FROM small");
    scala.collection.Seq<String> key = scala.collection.JavaConverters.asScalaBuffer(List.of("key")).toSeq();
    assertEquals(sorted(big.join(small, key, "inner")), sorted(probed(CuckooFilters.join(big, small, List.of("key"), "inner"))), type);
    // A filter built once prunes for several joins.
    SparkCuckooFilter filter = CuckooFilters.builder(small).keys("key").expectedItems(6000).build();
    assertEquals(sorted(big.join(small, key, "left_semi")), sorted(probed(filter.prune(big, "key").join(small, key, "left_semi"))), type);
  }

  @Test
  void theOneCallPruneIsLazyAndWorksOnSelfJoins() {
    // Nothing runs when the pruned side is defined: a small side that fails fails the action, not the call.
    Dataset<Row> failing = spark.table("small").selectExpr("CAST(assert_true(id < 0) AS BIGINT) AS id");
    Dataset<Row> pruned = CuckooFilters.prune(spark.table("big"), failing, "id");
    assertThrows(Exception.class, pruned::count);

    // Both sides from the same table: the subquery's plan shares the probed side's attributes.
    Dataset<Row> t = spark.table("big");
    Dataset<Row> part = t.where("payload % 5 = 0");
    scala.collection.Seq<String> key = scala.collection.JavaConverters.asScalaBuffer(List.of("id")).toSeq();
    assertEquals(sorted(t.join(part, key, "left_semi")),
        sorted(probed(CuckooFilters.join(t, part, List.of("id"), "left_semi"))));
    // The pruned side alone keeps false positives too; joined, they drop out.
    assertEquals(sorted(t.join(part, key, "left_semi")),
        sorted(probed(CuckooFilters.prune(t, part, 0.001, "id").join(part, key, "left_semi"))));

    // The filter is built in the query: a subquery whose result is the filter of the small side's keys
    // (in a self-join, the copy of the probe that Spark's constraint propagation puts on the small side
    // stays: both sides read the same table; it reuses the same subquery and keeps every row).
    Dataset<Row> joined = CuckooFilters.join(t, part, List.of("id"), "inner", JoinPruning.Side.LEFT, 0.001);
    assertEquals(sorted(t.join(part, key, "inner")), sorted(joined));
    byte[] expectedFilter = (byte[]) part.agg(CuckooFilters.filterOf(0, 0.001, part.col("id"))).first().get(0);
    List<org.apache.spark.sql.execution.ScalarSubquery> built =
        ExecutedPlans.of(joined.queryExecution().executedPlan()).subqueries;
    assertFalse(built.isEmpty());
    for (org.apache.spark.sql.execution.ScalarSubquery subquery : built) {
      assertArrayEquals(expectedFilter, (byte[]) subquery.eval(null));
    }

    IllegalArgumentException badFpp = assertThrows(IllegalArgumentException.class,
        () -> CuckooFilters.prune(t, part, 1.5, "id"));
    assertTrue(badFpp.getMessage().contains("fpp"), badFpp.getMessage());
  }

  @Test
  void aPrunedDatasetUsedTwiceKeepsItsProbeOnBothSides() {
    // The pruned Dataset on both sides of a join on another column, one side also joined with the small
    // side's table: the same probe (one subquery) on both sides, only one reading the small side. It is not a
    // copy that constraint propagation put there, yet RemoveInferredProbes removed it: 24307 rows, not 3828.
    Dataset<Row> fact = spark.range(0, 20000).selectExpr("id % 2000 AS k", "id AS v", "CAST(id % 13 AS INT) AS g");
    Dataset<Row> dim = spark.range(0, 400).selectExpr("id * 7 AS k", "CAST(id % 10 AS INT) AS segment");
    Dataset<Row> pruned = CuckooFilters.prune(fact, dim.where("segment < 2"), "k");
    Dataset<Row> checkpointed = pruned.localCheckpoint(); // the same rows, without the probe in its plan
    List<Long> counts = new ArrayList<>();
    for (Dataset<Row> p : List.of(pruned, checkpointed)) {
      Dataset<Row> withDim = p.join(dim, p.col("v").equalTo(dim.col("k"))).select(p.col("g").as("rg"));
      counts.add(p.select(p.col("g").as("lg")).join(withDim, col("lg").equalTo(col("rg"))).count());
    }
    assertEquals(counts.get(1), counts.get(0));
  }

  @Test
  void theOneCallPruneCountsTheRowsItSeesAndKeeps() {
    Dataset<Row> big = spark.table("big");
    Dataset<Row> small = spark.table("small").where("info % 3 = 0");
    Dataset<Row> pruned = CuckooFilters.prune(big, small, 0.001, "id");
    long kept = pruned.collectAsList().size();
    List<dev.cuckoofilter.spark.expressions.PruneMetrics> counts = CuckooFilters.pruneMetrics(pruned);
    assertEquals(1, counts.size(), counts::toString);
    assertEquals("cuckoo filter on id", counts.get(0).name());
    // Every row reaches the probe, those with a null key too (which it drops: nulls never match).
    long withKey = big.where("id IS NOT NULL").count();
    assertEquals(30_000, counts.get(0).rowsIn(), counts::toString);
    assertEquals(kept, counts.get(0).rowsOut(), counts::toString);
    assertEquals(0, pruned.where("id IS NULL").count());
    long matching = big.join(small.select("id").distinct(),
        scala.collection.JavaConverters.asScalaBuffer(List.of("id")).toSeq(), "left_semi").count();
    assertTrue(kept >= matching && kept - matching <= withKey / 100, kept + " kept, " + matching + " match");
  }

  @Test
  void theOneCallJoinProbesOnlyTheSideItPrunes() {
    // Spark's constraint propagation copies the probe of big.id to small.id (the join equates them); the
    // extension removes that copy, a probe of the small side by a filter of its own keys.
    Dataset<Row> big = spark.table("big");
    Dataset<Row> small = spark.table("small").where("info % 3 = 0");
    Dataset<Row> joined = CuckooFilters.join(big, small, List.of("id"), "inner", JoinPruning.Side.LEFT, 0.001);
    scala.collection.Seq<String> key = scala.collection.JavaConverters.asScalaBuffer(List.of("id")).toSeq();
    assertEquals(sorted(big.join(small, key, "inner")), sorted(joined));
    String plan = joined.queryExecution().optimizedPlan().toString();
    assertEquals(1, plan.split("cuckoo_might_contain", -1).length - 1, plan);
    byte[] expectedFilter = (byte[]) small.agg(CuckooFilters.filterOf(0, 0.001, small.col("id"))).first().get(0);
    assertArrayEquals(expectedFilter, ExecutedPlans.of(joined.queryExecution().executedPlan()).onlySubqueryResult());
  }

  @Test
  void compositeKeysAndEmptySmallSides() {
    Dataset<Row> big = spark.sql("SELECT id AS a, concat('x', id % 7) AS b, payload FROM big");
    Dataset<Row> small = spark.sql("SELECT id AS a, concat('x', id % 7) AS b, info FROM small WHERE id % 3 = 0");
    Dataset<Row> expected = big.join(small, scala.collection.JavaConverters.asScalaBuffer(List.of("a", "b")).toSeq());
    assertEquals(sorted(expected), sorted(probed(CuckooFilters.join(big, small, List.of("a", "b"), "inner"))));
    Dataset<Row> empty = small.where("a < 0");
    assertEquals(0, CuckooFilters.prune(big, empty, "a", "b").count());
    assertEquals(0, CuckooFilters.join(big, empty, List.of("a", "b"), "inner").count());
  }

  /** Every join type and side: pruned where allowed (and equal), refused where it would change results. */
  @ParameterizedTest(name = "{0} {1}")
  @CsvSource({"inner, LEFT, true", "inner, RIGHT, true", "left_outer, LEFT, false", "left_outer, RIGHT, true",
      "right_outer, LEFT, true", "right_outer, RIGHT, false", "full_outer, LEFT, false", "full_outer, RIGHT, false",
      "left_semi, LEFT, true", "left_semi, RIGHT, true", "left_anti, LEFT, false", "left_anti, RIGHT, true",
      "cross, LEFT, false"})
  void joinTypesArePrunedOnlyWhereSafe(String joinType, JoinPruning.Side side, boolean allowed) {
    Dataset<Row> left = spark.table("big");
    Dataset<Row> right = spark.table("small");
    if (!allowed) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> CuckooFilters.join(left, right, List.of("id"), joinType, side));
      assertTrue(e.getMessage().contains("cannot prune"), e.getMessage());
      return;
    }
    Dataset<Row> expected = left.join(right, scala.collection.JavaConverters.asScalaBuffer(List.of("id")).toSeq(),
        joinType);
    assertEquals(sorted(expected), sorted(probed(CuckooFilters.join(left, right, List.of("id"), joinType, side))));
  }

  @Test
  void aSideThatMayReadOtherRowsEachTimeIsNotBuiltFrom() {
    // The filter's subquery reads the small side again: with a limit, rand() or an aggregate that picks rows by
    // arrival order, that read may hold other keys than the join's, and the join would lose matches.
    Dataset<Row> big = spark.table("big");
    for (Dataset<Row> unstable : List.of(spark.table("small").limit(100), spark.table("small").where("rand() < 0.5"),
        spark.table("small").sample(0.5),
        // max_by breaks the ties of a group (every id of it has the same g) by arrival order.
        spark.table("small").selectExpr("id % 10 AS g", "id").groupBy("g").agg(
            org.apache.spark.sql.functions.expr("max_by(id, g)").as("id")),
        // ...also inside a subquery of the side.
        spark.table("small").where("id < (SELECT payload FROM big WHERE payload % 7 = 3 LIMIT 1)"),
        spark.table("small").where("info IN (SELECT first(payload) FROM big GROUP BY id % 50)"))) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> CuckooFilters.join(big, unstable, List.of("id"), "inner"));
      assertTrue(e.getMessage().contains("not repeatable"), e.getMessage());
      assertThrows(IllegalArgumentException.class, () -> CuckooFilters.prune(big, unstable, "id"));
    }
    // Once checkpointed, every read returns the same rows.
    Dataset<Row> fixed = spark.table("small").limit(100).localCheckpoint();
    scala.collection.Seq<String> key = scala.collection.JavaConverters.asScalaBuffer(List.of("id")).toSeq();
    assertEquals(sorted(big.join(fixed, key, "inner")), sorted(probed(CuckooFilters.join(big, fixed, List.of("id"),
        "inner"))));
  }

  @Test
  void survivorsOfTheFilterAreWithinItsFalsePositiveRate() {
    Dataset<Row> big = spark.range(0, 400_000).toDF("id");
    Dataset<Row> small = spark.range(0, 400_000, 10).toDF("id");
    SparkCuckooFilter filter = CuckooFilters.builder(small).keys("id").fpp(0.01).build();
    long kept = filter.prune(big, "id").count();
    long matching = 40_000;
    long nonMatching = 360_000;
    double survived = (double) (kept - matching) / nonMatching;
    double expected = filter.filter().expectedFpp();
    double sigma = Math.sqrt(expected * (1 - expected) / nonMatching);
    assertTrue(Math.abs(survived - expected) < 5 * sigma, "survived " + survived + ", expected " + expected);
    assertEquals(400_000, filter.rowsIn());
    assertEquals(kept, filter.rowsOut());
  }

  @Test
  void mismatchedKeyTypesAreRefused() {
    SparkCuckooFilter ints = CuckooFilters.build(spark.range(0, 10).toDF("id"), "id");
    Dataset<Row> strings = spark.sql("SELECT CAST(id AS STRING) AS id FROM range(0, 10)");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ints.prune(strings, "id"));
    assertTrue(e.getMessage().contains("do not match"), e.getMessage());
    // Integral widths hash alike, so an int probe of a long filter is fine.
    assertEquals(10, ints.prune(spark.sql("SELECT CAST(id AS INT) AS id FROM range(0, 10)"), "id").count());
    IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
        () -> CuckooFilters.build(spark.sql("SELECT array(id) AS a FROM range(0, 3)"), "a"));
    assertTrue(bad.getMessage().contains("key column a"), bad.getMessage());
  }

  @Test
  void explainShowsTheProbeInsideTheCompiledStage() {
    SparkCuckooFilter filter = CuckooFilters.build(spark.table("small"), "id");
    String plan = filter.prune(spark.table("big"), "id").queryExecution().executedPlan().toString();
    assertTrue(plan.contains("Filter cuckoo_might_contain(cuckoo_filter[broadcast"), plan);
    assertTrue(plan.contains("*("), "whole-stage code generation: " + plan);
    long rows = filter.prune(spark.table("big"), col("id")).count();
    assertTrue(rows > 0);
  }
}
