package dev.cuckoofilter.spark.optimizer;

import static dev.cuckoofilter.spark.optimizer.RuntimeFilterRuleTest.buildsFromFact;
import static dev.cuckoofilter.spark.optimizer.RuntimeFilterRuleTest.injected;
import static dev.cuckoofilter.spark.optimizer.RuntimeFilterRuleTest.prunesFact;
import static dev.cuckoofilter.spark.optimizer.RuntimeFilterRuleTest.rows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoofilter.spark.SparkTestSession;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Property;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.ExplainMode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The per-query hints {@code CUCKOO_FILTER} and {@code NO_CUCKOO_FILTER} (SQL and {@code Dataset.hint}): they
 * beat the session's settings, never prune an unsafe side, never change a result, and leave no trace in the
 * physical plan. The tables are those of {@link RuntimeFilterRuleTest}.
 */
class RuntimeFilterHintTest {
  static SparkSession spark;
  static final List<String> warnings = Collections.synchronizedList(new ArrayList<>());
  static AbstractAppender capture;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.builder("local[2]").config("spark.sql.adaptive.enabled", "true").getOrCreate();
    // fact: 40,000 rows, keys with duplicates and nulls; dim: 4,000 keys, some not in fact, some null.
    spark.sql("CREATE OR REPLACE TEMP VIEW fact AS SELECT CASE WHEN id % 97 = 0 THEN NULL ELSE id % 20000 END AS k, "
        + "id AS v, CAST(id % 13 AS INT) AS g FROM range(0, 40000)");
    spark.sql("CREATE OR REPLACE TEMP VIEW dim AS SELECT CASE WHEN id % 41 = 0 THEN NULL ELSE id * 7 END AS k, "
        + "CAST(id % 10 AS INT) AS segment, concat('d', id) AS name FROM range(0, 4000)");
    capture = new AbstractAppender("hint-warnings", null, null, true, Property.EMPTY_ARRAY) {
      @Override
      public void append(LogEvent event) {
        warnings.add(event.getLevel() + " " + event.getMessage().getFormattedMessage());
      }
    };
    capture.start();
    for (Class<?> c : List.of(CuckooRuntimeFilterRule.class, ResolveCuckooFilterHints.class)) {
      ((org.apache.logging.log4j.core.Logger) LogManager.getLogger(c)).addAppender(capture);
    }
  }

  @AfterAll
  static void stop() {
    for (Class<?> c : List.of(CuckooRuntimeFilterRule.class, ResolveCuckooFilterHints.class)) {
      ((org.apache.logging.log4j.core.Logger) LogManager.getLogger(c)).removeAppender(capture);
    }
    spark.stop();
  }

  @AfterEach
  void resetConf() {
    for (String key : List.of(RuntimeFilterConf.ENABLED, RuntimeFilterConf.FORCE,
        RuntimeFilterConf.APPLICATION_SIDE_THRESHOLD, "spark.sql.autoBroadcastJoinThreshold")) {
      spark.conf().unset(key);
    }
    warnings.clear();
  }

  /** Shuffled joins where the rule, unhinted, stays off: the fact side is below its default 8MB threshold. */
  static void shuffledBelowThresholds() {
    spark.conf().set("spark.sql.autoBroadcastJoinThreshold", "-1");
  }

  /** Shuffled joins where the rule, unhinted, fires ({@link RuntimeFilterRuleTest}'s setting). */
  static void shuffledAboveThresholds() {
    spark.conf().set("spark.sql.autoBroadcastJoinThreshold", "-1");
    spark.conf().set(RuntimeFilterConf.APPLICATION_SIDE_THRESHOLD, "1KB");
  }

  /** The rows of {@code plainSql} with the rule off: what every hinted variant must return. */
  static List<String> expected(String plainSql) {
    String before = spark.conf().get(RuntimeFilterConf.ENABLED, "true");
    try {
      spark.conf().set(RuntimeFilterConf.ENABLED, "false");
      Dataset<Row> off = spark.sql(plainSql);
      assertFalse(injected(off));
      return rows(off);
    } finally {
      spark.conf().set(RuntimeFilterConf.ENABLED, before);
    }
  }

  static String explained(Dataset<Row> df) {
    return df.queryExecution().explainString(ExplainMode.fromString("extended"));
  }

  /** No hint node reaches physical planning, and the optimized plan holds none either. */
  static void noHintNodeLeft(Dataset<Row> df) {
    assertFalse(df.queryExecution().optimizedPlan().toString().contains("CuckooFilterHint"));
    assertFalse(df.queryExecution().executedPlan().toString().contains("CuckooFilterHint"));
  }

  @Test
  void sqlHintForcesAFilterWhereTheRuleWouldNot() {
    shuffledBelowThresholds();
    String plain = "SELECT f.k, f.v, d.name FROM fact f JOIN dim d ON f.k = d.k WHERE d.segment < 2";
    List<String> expected = expected(plain);
    assertFalse(injected(spark.sql(plain)), "the fact side is below the rule's threshold");
    for (String hinted : List.of(
        "SELECT /*+ CUCKOO_FILTER(f) */ f.k, f.v, d.name FROM fact f JOIN dim d ON f.k = d.k WHERE d.segment < 2",
        "SELECT /*+ cuckoo_filter(F) */ f.k, f.v, d.name FROM fact f JOIN dim d ON f.k = d.k WHERE d.segment < 2",
        "SELECT /*+ CUCKOO_FILTER('f') */ f.k, f.v, d.name FROM fact f JOIN dim d ON f.k = d.k WHERE d.segment < 2",
        "SELECT /*+ CUCKOO_FILTER(fact) */ fact.k, fact.v, d.name FROM fact JOIN dim d ON fact.k = d.k "
            + "WHERE d.segment < 2",
        "SELECT /*+ CUCKOO_FILTER(f) */ f.k, f.v, d.name FROM dim d JOIN fact f ON f.k = d.k WHERE d.segment < 2")) {
      Dataset<Row> df = spark.sql(hinted);
      assertTrue(prunesFact(df), hinted + "\n" + df.queryExecution().optimizedPlan());
      assertFalse(buildsFromFact(df), hinted);
      assertEquals(expected, rows(df), hinted);
      noHintNodeLeft(df);
      String explain = explained(df);
      assertTrue(explain.contains("CuckooFilterHint CUCKOO_FILTER("), "the analyzed plan shows the hint:\n" + explain);
      assertTrue(df.queryExecution().executedPlan().toString().contains("cuckoo_might_contain"), explain);
    }
    // Without any predicate on the other side, and with the rule switched off: a hint beats the settings.
    spark.conf().set(RuntimeFilterConf.ENABLED, "false");
    String all = "SELECT /*+ CUCKOO_FILTER(f) */ f.k, d.name FROM fact f JOIN dim d ON f.k = d.k";
    Dataset<Row> df = spark.sql(all);
    assertTrue(prunesFact(df), df.queryExecution().optimizedPlan().toString());
    assertEquals(expected("SELECT f.k, d.name FROM fact f JOIN dim d ON f.k = d.k"), rows(df));
    assertTrue(warnings.isEmpty(), warnings.toString());
  }

  @Test
  void datasetHintForcesTheSideItIsOn() {
    shuffledBelowThresholds();
    Dataset<Row> fact = spark.table("fact");
    Dataset<Row> dim = spark.table("dim").where("segment < 2");
    List<String> expected = expected("SELECT f.k, f.v, f.g, d.segment, d.name FROM fact f JOIN dim d ON f.k = d.k "
        + "WHERE d.segment < 2");
    assertFalse(injected(fact.join(dim, "k")));

    Dataset<Row> pruneFact = fact.hint("cuckoo_filter").join(dim, "k").select("k", "v", "g", "segment", "name");
    assertTrue(prunesFact(pruneFact), pruneFact.queryExecution().optimizedPlan().toString());
    assertFalse(buildsFromFact(pruneFact));
    assertEquals(expected, rows(pruneFact));
    noHintNodeLeft(pruneFact);

    // On the other side the hint prunes that side, with a filter of the fact side's keys.
    Dataset<Row> pruneDim = fact.join(dim.hint("CUCKOO_FILTER"), "k").select("k", "v", "g", "segment", "name");
    assertFalse(prunesFact(pruneDim));
    assertTrue(buildsFromFact(pruneDim), pruneDim.queryExecution().optimizedPlan().toString());
    assertEquals(expected, rows(pruneDim));

    // With a relation name, as in SQL; and next to a join strategy hint, which still applies.
    Dataset<Row> named = fact.hint("cuckoo_filter", "fact").join(dim.hint("broadcast"), "k")
        .select("k", "v", "g", "segment", "name");
    assertTrue(prunesFact(named));
    assertEquals(expected, rows(named));
    assertTrue(named.queryExecution().executedPlan().toString().contains("BroadcastHashJoin"));
    Dataset<Row> both = fact.join(dim.hint("broadcast").hint("cuckoo_filter"), "k");
    assertTrue(buildsFromFact(both));
    assertTrue(both.queryExecution().optimizedPlan().toString().contains("strategy=broadcast"));
  }

  @Test
  void sqlHintForbidsAFilterWhereTheRuleWouldFire() {
    shuffledAboveThresholds();
    String plain = "SELECT f.k, f.v, d.name FROM fact f JOIN dim d ON f.k = d.k WHERE d.segment < 2";
    List<String> expected = expected(plain);
    assertTrue(prunesFact(spark.sql(plain)), "the rule fires unhinted");
    for (String hinted : List.of(
        "SELECT /*+ NO_CUCKOO_FILTER(f) */ f.k, f.v, d.name FROM fact f JOIN dim d ON f.k = d.k WHERE d.segment < 2",
        "SELECT /*+ NO_CUCKOO_FILTER */ f.k, f.v, d.name FROM fact f JOIN dim d ON f.k = d.k WHERE d.segment < 2",
        "SELECT /*+ NO_CUCKOO_FILTER(x) */ x.k, x.v, x.name FROM (SELECT f.k, f.v, d.name FROM fact f JOIN dim d "
            + "ON f.k = d.k WHERE d.segment < 2) x",
        "SELECT /*+ NO_CUCKOO_FILTER */ * FROM (SELECT f.k, f.v, d.name FROM fact f JOIN dim d ON f.k = d.k "
            + "WHERE d.segment < 2)")) {
      Dataset<Row> df = spark.sql(hinted);
      assertFalse(injected(df), hinted + "\n" + df.queryExecution().optimizedPlan());
      assertEquals(expected, rows(df), hinted);
      noHintNodeLeft(df);
      assertFalse(df.queryExecution().executedPlan().toString().contains("cuckoo_might_contain"));
      assertTrue(explained(df).contains("CuckooFilterHint NO_CUCKOO_FILTER"));
    }
    // A hint beats the session's force setting too.
    spark.conf().set(RuntimeFilterConf.FORCE, "true");
    Dataset<Row> forcedBySession = spark.sql("SELECT /*+ NO_CUCKOO_FILTER(f) */ f.k, d.name FROM fact f JOIN dim d "
        + "ON f.k = d.k");
    assertFalse(prunesFact(forcedBySession));
    assertTrue(injected(forcedBySession), "the other side, not forbidden, is still pruned when forced");
  }

  @Test
  void forbiddenRelationIsNotPrunedThroughAnotherJoin() {
    shuffledAboveThresholds();
    // The filter on the joined side (fact JOIN dim2) probes fact's keys, so push-down would put it on fact.
    // The first join alone would not prune fact (no selective predicate on its other side).
    String body = " f.k, f.v, d.name FROM fact f JOIN (SELECT DISTINCT segment FROM dim) d2 ON f.g = d2.segment "
        + "JOIN dim d ON f.k = d.k WHERE d.segment < 2";
    List<String> expected = expected("SELECT" + body);
    assertTrue(prunesFact(spark.sql("SELECT" + body)));
    Dataset<Row> df = spark.sql("SELECT /*+ NO_CUCKOO_FILTER(f) */" + body);
    assertFalse(prunesFact(df), df.queryExecution().optimizedPlan().toString());
    assertEquals(expected, rows(df));
  }

  @Test
  void datasetHintForbids() {
    shuffledAboveThresholds();
    Dataset<Row> fact = spark.table("fact");
    Dataset<Row> dim = spark.table("dim").where("segment < 2");
    List<String> expected = expected("SELECT f.k, f.v, f.g, d.segment, d.name FROM fact f JOIN dim d ON f.k = d.k "
        + "WHERE d.segment < 2");
    assertTrue(prunesFact(fact.join(dim, "k")));
    Dataset<Row> onSide = fact.hint("no_cuckoo_filter").join(dim, "k");
    assertFalse(injected(onSide), onSide.queryExecution().optimizedPlan().toString());
    assertEquals(expected, rows(onSide));
    Dataset<Row> onJoin = fact.join(dim, "k").hint("no_cuckoo_filter");
    assertFalse(injected(onJoin));
    assertEquals(expected, rows(onJoin));
    noHintNodeLeft(onJoin);
  }

  @Test
  void aHintNeverPrunesAnUnsafeSide() {
    shuffledBelowThresholds();
    String dim2 = "(SELECT * FROM dim WHERE segment < 2) d";
    for (String plain : List.of(
        "SELECT f.k, f.v, d.name FROM fact f LEFT OUTER JOIN " + dim2 + " ON f.k = d.k",
        "SELECT f.k, f.v, d.name FROM " + dim2 + " RIGHT OUTER JOIN fact f ON f.k = d.k",
        "SELECT f.k, f.v FROM fact f LEFT ANTI JOIN " + dim2 + " ON f.k = d.k",
        "SELECT f.k, d.k FROM fact f FULL OUTER JOIN " + dim2 + " ON f.k = d.k")) {
      String hinted = plain.replaceFirst("SELECT ", "SELECT /*+ CUCKOO_FILTER(f) */ ");
      List<String> expected = expected(plain);
      warnings.clear();
      Dataset<Row> df = spark.sql(hinted);
      assertFalse(prunesFact(df), hinted + "\n" + df.queryExecution().optimizedPlan());
      assertEquals(expected, rows(df), hinted);
      noHintNodeLeft(df);
      assertTrue(warnings.stream().anyMatch(w -> w.startsWith("WARN Ignoring hint CUCKOO_FILTER(f)")),
          hinted + ": " + warnings);
    }
    // Even with a broadcast hint and the session forcing filters: the preserved side stays whole.
    spark.conf().set(RuntimeFilterConf.FORCE, "true");
    Dataset<Row> fact = spark.table("fact");
    Dataset<Row> dim = spark.table("dim").where("segment < 2");
    Dataset<Row> df = fact.hint("cuckoo_filter").join(dim.hint("broadcast"), fact.col("k").equalTo(dim.col("k")),
        "left_anti");
    assertFalse(prunesFact(df));
    assertEquals(expected("SELECT f.k, f.v, f.g FROM fact f LEFT ANTI JOIN " + dim2 + " ON f.k = d.k"), rows(df));
  }

  @Test
  void aHintOnTheOtherSideOfAnOuterOrAntiJoinStillApplies() {
    shuffledBelowThresholds();
    // The side an outer join does not preserve, and the right side of an anti join, may be pruned.
    for (String plain : List.of(
        "SELECT f.k, f.v, d.name FROM fact f LEFT OUTER JOIN dim d ON f.k = d.k",
        "SELECT f.k, f.v FROM fact f LEFT ANTI JOIN dim d ON f.k = d.k")) {
      String hinted = plain.replaceFirst("SELECT ", "SELECT /*+ CUCKOO_FILTER(d) */ ");
      Dataset<Row> df = spark.sql(hinted);
      assertTrue(buildsFromFact(df), hinted + "\n" + df.queryExecution().optimizedPlan());
      assertEquals(expected(plain), rows(df), hinted);
    }
  }

  @Test
  void unknownOrMisplacedHintsAreHarmless() {
    shuffledAboveThresholds();
    String plain = "SELECT f.k, f.v, d.name FROM fact f JOIN dim d ON f.k = d.k WHERE d.segment < 2";
    List<String> expected = expected(plain);
    Dataset<Row> unhinted = spark.sql(plain);
    for (String hinted : List.of(
        "SELECT /*+ CUCKOO_FILTER(nothere) */ f.k, f.v, d.name FROM fact f JOIN dim d ON f.k = d.k WHERE d.segment < 2",
        "SELECT /*+ NO_CUCKOO_FILTER(nothere, other.x) */ f.k, f.v, d.name FROM fact f JOIN dim d ON f.k = d.k "
            + "WHERE d.segment < 2",
        "SELECT /*+ CUCKOO_FILTER(db.f) */ f.k, f.v, d.name FROM fact f JOIN dim d ON f.k = d.k WHERE d.segment < 2",
        "SELECT /*+ CUCKOO_FILTER(1) */ f.k, f.v, d.name FROM fact f JOIN dim d ON f.k = d.k WHERE d.segment < 2",
        "SELECT /*+ CUCKOO_FILTER */ f.k, f.v, d.name FROM fact f JOIN dim d ON f.k = d.k WHERE d.segment < 2")) {
      Dataset<Row> df = spark.sql(hinted);
      assertTrue(df.queryExecution().optimizedPlan().sameResult(unhinted.queryExecution().optimizedPlan()),
          hinted + "\n" + df.queryExecution().optimizedPlan());
      assertEquals(expected, rows(df), hinted);
      noHintNodeLeft(df);
    }
    assertTrue(warnings.stream().anyMatch(w -> w.contains("CUCKOO_FILTER(nothere)")), warnings.toString());
    Dataset<Row> named = spark.table("fact").hint("cuckoo_filter", "nothere").join(spark.table("dim"), "k");
    assertEquals(rows(spark.table("fact").join(spark.table("dim"), "k")), rows(named));

    // On a query without a join, and on a correlated subquery (left as it is).
    Dataset<Row> noJoin = spark.sql("SELECT /*+ CUCKOO_FILTER(f) */ count(*) FROM fact f WHERE f.v < 100");
    assertEquals(100L, noJoin.first().getLong(0));
    noHintNodeLeft(noJoin);
    String exists = "SELECT f.k, f.v FROM fact f WHERE EXISTS (SELECT 1 FROM dim d WHERE d.k = f.k AND d.segment < 2)";
    Dataset<Row> correlated = spark.sql(exists.replace("SELECT 1", "SELECT /*+ NO_CUCKOO_FILTER */ 1"));
    assertEquals(expected(exists), rows(correlated));
    noHintNodeLeft(correlated);
  }
}
