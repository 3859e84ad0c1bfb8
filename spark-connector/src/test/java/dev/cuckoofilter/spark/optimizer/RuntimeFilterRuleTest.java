package dev.cuckoofilter.spark.optimizer;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.struct;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoofilter.spark.CuckooFilters;
import dev.cuckoofilter.spark.ExecutedPlans;
import dev.cuckoofilter.spark.SparkTestSession;
import dev.cuckoofilter.spark.execution.MapSideFilterBuildExec;
import dev.cuckoofilter.spark.expressions.CuckooMightContain;
import dev.cuckoofilter.spark.expressions.PruneMetrics;
import dev.cuckoofilter.spark.prune.JoinPruning;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.plans.logical.Filter;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The automatic runtime filter: exactly equal results, and it fires only where it should. */
class RuntimeFilterRuleTest {
  static SparkSession spark;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.builder("local[2]").config("spark.sql.adaptive.enabled", "true").getOrCreate();
    // fact: 40,000 rows, keys with duplicates and nulls; dim: 4,000 keys, some not in fact, some null.
    spark.sql("CREATE OR REPLACE TEMP VIEW fact AS SELECT CASE WHEN id % 97 = 0 THEN NULL ELSE id % 20000 END AS k, "
        + "id AS v, CAST(id % 13 AS INT) AS g FROM range(0, 40000)");
    spark.sql("CREATE OR REPLACE TEMP VIEW dim AS SELECT CASE WHEN id % 41 = 0 THEN NULL ELSE id * 7 END AS k, "
        + "CAST(id % 10 AS INT) AS segment, concat('d', id) AS name FROM range(0, 4000)");
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  @AfterEach
  void resetConf() {
    for (String key : List.of(RuntimeFilterConf.ENABLED, RuntimeFilterConf.FORCE, RuntimeFilterConf.APPLICATION_SIDE_THRESHOLD,
        RuntimeFilterConf.REQUIRE_SELECTIVE, "spark.sql.autoBroadcastJoinThreshold")) {
      spark.conf().unset(key);
    }
  }

  /** Shuffled joins over the small test tables: no broadcast, a tiny application-side threshold. */
  static void shuffledJoinsOverSmallTables() {
    spark.conf().set("spark.sql.autoBroadcastJoinThreshold", "-1");
    spark.conf().set(RuntimeFilterConf.APPLICATION_SIDE_THRESHOLD, "1KB");
  }

  static boolean injected(Dataset<Row> df) {
    return df.queryExecution().optimizedPlan().toString().contains("cuckoo_might_contain");
  }

  static List<String> rows(Dataset<Row> df) {
    List<String> out = new ArrayList<>();
    for (Row r : df.collectAsList()) {
      out.add(r.toString());
    }
    Collections.sort(out);
    return out;
  }

  /** Runs the query with the rule off, then on, and compares; returns whether the rule injected a filter. */
  static boolean compareWithRuleOnAndOff(String sql) {
    spark.conf().set(RuntimeFilterConf.ENABLED, "false");
    Dataset<Row> off = spark.sql(sql);
    assertFalse(injected(off));
    List<String> expected = rows(off);
    spark.conf().set(RuntimeFilterConf.ENABLED, "true");
    Dataset<Row> on = spark.sql(sql);
    assertEquals(expected, rows(on), sql);
    return injected(on);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "SELECT f.k, f.v, d.name FROM fact f JOIN dim d ON f.k = d.k WHERE d.segment < 2 | true",
      "SELECT f.k, f.v FROM fact f LEFT SEMI JOIN dim d ON f.k = d.k AND d.segment < 2 | true",
      "SELECT f.k, f.v, d.name FROM dim d RIGHT OUTER JOIN fact f ON f.k = d.k AND d.segment < 2 | false",
      "SELECT f.k, f.v, d.name FROM (SELECT * FROM dim WHERE segment < 2) d RIGHT OUTER JOIN fact f ON f.k = d.k | false",
      "SELECT f.k, f.v, d.name FROM fact f RIGHT OUTER JOIN (SELECT * FROM dim WHERE segment < 2) d ON f.k = d.k | true",
      "SELECT f.k, f.v, d.name FROM (SELECT * FROM dim WHERE segment < 2) d LEFT OUTER JOIN fact f ON f.k = d.k | true",
      "SELECT f.k, f.v FROM fact f LEFT ANTI JOIN (SELECT * FROM dim WHERE segment < 2) d ON f.k = d.k | false",
      "SELECT f.k, f.v, d.name FROM fact f FULL OUTER JOIN (SELECT * FROM dim WHERE segment < 2) d ON f.k = d.k | false",
      "SELECT f.k, f.v, d.name FROM fact f JOIN dim d ON f.k <=> d.k WHERE d.segment < 2 OR d.k IS NULL | true",
      "SELECT f.k, count(*) FROM fact f JOIN dim d ON f.k = d.k AND f.g = d.segment WHERE d.name LIKE 'd1%' GROUP BY f.k | true",
      "SELECT f.k, f.v, d.name FROM fact f JOIN dim d ON f.k = d.k AND f.v > d.segment WHERE d.segment = 3 | true",
      // IN and EXISTS subqueries are semi joins (Spark rewrites them after the rule); NOT IN, NOT EXISTS and an
      // IN under OR keep every row of fact that matches nothing.
      "SELECT f.k, f.v FROM fact f WHERE f.k IN (SELECT k FROM dim WHERE segment < 2) | true",
      "SELECT f.k, f.v FROM fact f WHERE f.v > 5 AND f.k IN (SELECT k FROM dim WHERE segment < 2 AND k > f.g) | true",
      "SELECT f.k, f.v FROM fact f WHERE EXISTS (SELECT 1 FROM dim d WHERE d.k = f.k AND d.segment < 2) | true",
      "SELECT f.k, f.v FROM fact f WHERE f.k NOT IN (SELECT k FROM dim WHERE segment < 2) | false",
      "SELECT f.k, f.v FROM fact f WHERE NOT EXISTS (SELECT 1 FROM dim d WHERE d.k = f.k AND d.segment < 2) | false",
      "SELECT f.k, f.v FROM fact f WHERE f.k IN (SELECT k FROM dim WHERE segment < 2) OR f.v < 10 | false",
      "SELECT f.k, count(*) FROM fact f WHERE (f.k, f.g) IN (SELECT k, segment FROM dim WHERE name LIKE 'd1%') GROUP BY f.k | true"})
  void resultsAreExactlyEqualWithTheRuleOnAndOff(String sql, boolean expectFilter) {
    shuffledJoinsOverSmallTables();
    assertEquals(expectFilter, compareWithRuleOnAndOff(sql), sql);
  }

  @Test
  void structKeysWithNullFieldsKeepTheirMatches() {
    shuffledJoinsOverSmallTables();
    spark.conf().set(RuntimeFilterConf.FORCE, "true");
    // Spark's struct equality treats null fields as equal: struct(3, null) = struct(3, null) is true. A filter
    // leaves out keys with a null component, so probing the structs as keys lost those matches.
    spark.sql("CREATE OR REPLACE TEMP VIEW sfact AS SELECT named_struct('a', id % 2000, 'b', "
        + "CASE WHEN id % 3 = 0 THEN NULL ELSE id % 5 END) AS s, id AS v FROM range(0, 20000)");
    spark.sql("CREATE OR REPLACE TEMP VIEW sdim AS SELECT named_struct('a', id * 7, 'b', "
        + "CASE WHEN id % 2 = 0 THEN NULL ELSE id % 5 END) AS s, concat('d', id) AS name FROM range(0, 400)");
    for (String sql : List.of(
        "SELECT f.v, d.name FROM sfact f JOIN sdim d ON f.s = d.s",
        "SELECT f.v, d.name FROM sfact f JOIN sdim d ON f.s <=> d.s",
        "SELECT f.v FROM sfact f LEFT SEMI JOIN sdim d ON f.s = d.s",
        "SELECT f.v, d.name FROM sfact f JOIN sdim d ON struct(f.s, f.v % 2) = struct(d.s, 1)")) {
      assertTrue(compareWithRuleOnAndOff(sql), sql);
    }
    spark.conf().set(RuntimeFilterConf.ENABLED, "false");
    assertTrue(spark.sql("SELECT f.v FROM sfact f JOIN sdim d ON f.s = d.s WHERE f.s.b IS NULL").count() > 0,
        "the test joins keys with null fields");
  }

  @Test
  void neverBuildsFromASideWhoseRowsARunMayNotRepeat() {
    shuffledJoinsOverSmallTables();
    spark.conf().set(RuntimeFilterConf.FORCE, "true");
    // The filter's subquery runs the dim side again: with rand(), first(), a limit or a row_number() over ties
    // that run may yield other keys than the join's, and the filter would drop matching fact rows.
    for (String side : List.of(
        "SELECT k FROM dim WHERE rand(7) < 0.5",
        "SELECT first(k) AS k FROM dim GROUP BY segment",
        // Aggregates that keep a row by arrival order or break ties by it (every k of a group ties on segment).
        "SELECT max_by(k, segment) AS k FROM dim GROUP BY segment",
        "SELECT min_by(k, segment) AS k FROM dim GROUP BY segment",
        "SELECT any_value(k) AS k FROM dim GROUP BY segment",
        "SELECT mode(k % 7 + segment * 7) AS k FROM dim GROUP BY segment",
        "SELECT element_at(collect_list(k), 1) AS k FROM dim GROUP BY segment",
        "SELECT CAST(percentile_approx(k, 0.5, 10) AS BIGINT) AS k FROM dim GROUP BY segment",
        "SELECT k FROM dim WHERE segment < 2 LIMIT 100",
        "SELECT k FROM (SELECT k, row_number() OVER (PARTITION BY segment ORDER BY k % 10) AS rn FROM dim) WHERE rn < 5",
        "SELECT k FROM (SELECT k, sum(segment) OVER (ORDER BY k % 10 ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS s "
            + "FROM dim) WHERE s < 4")) {
      String sql = "SELECT f.k, f.v FROM fact f JOIN (" + side + ") d ON f.k = d.k";
      compareWithRuleOnAndOff(sql);
      // The IN / EXISTS subquery's own semi join may be pruned, by a filter of dim's keys: a limit on the side a
      // filter prunes is run once, as in the query.
      assertFalse(buildsFrom(spark.sql(sql), plan -> !JoinPruning.repeatable(plan)),
          () -> spark.sql(sql).queryExecution().optimizedPlan().toString());
    }
    // Floating-point sums round by the order they add in, which the final aggregation's fetch order sets: a group
    // at a HAVING bound, or a key computed from such a sum, may come out otherwise in the filter's run.
    for (String side : List.of(
        "SELECT segment AS k FROM dim GROUP BY segment HAVING sum(k * 0.1D) < 1e6",
        "SELECT CAST(avg(k) AS BIGINT) AS k FROM dim GROUP BY segment",
        "SELECT CAST(stddev(k) AS BIGINT) AS k FROM dim GROUP BY segment")) {
      String sql = "SELECT f.k, f.v FROM fact f JOIN (" + side + ") d ON f.k = d.k";
      compareWithRuleOnAndOff(sql);
      assertFalse(buildsFrom(spark.sql(sql), 4000), () -> spark.sql(sql).queryExecution().optimizedPlan().toString());
    }
    // Order-independent windows and filters still build.
    for (String side : List.of(
        "SELECT k FROM dim WHERE segment < 2",
        "SELECT k FROM (SELECT k, max(segment) OVER (PARTITION BY k) AS m FROM dim) WHERE m < 2",
        // Exact aggregates: a sum of integers, the maximum of doubles.
        "SELECT k FROM dim GROUP BY k HAVING sum(segment) < 2 AND max(segment * 0.5D) < 1")) {
      String sql = "SELECT f.k, f.v FROM fact f JOIN (" + side + ") d ON f.k = d.k";
      compareWithRuleOnAndOff(sql);
      assertTrue(buildsFrom(spark.sql(sql), 4000), sql);
    }
  }

  @Test
  void neverBuildsFromASideWhoseSubqueryMayNotRepeat() {
    shuffledJoinsOverSmallTables();
    spark.conf().set(RuntimeFilterConf.FORCE, "true");
    // A limit or an arrival-order aggregate inside an IN, EXISTS or scalar subquery of the dim side makes that side
    // as unrepeatable as one of its own: the filter's run of it may keep other dim rows than the join's run.
    for (String side : List.of(
        "SELECT k FROM dim WHERE k IN (SELECT v FROM fact WHERE g = 1 LIMIT 300)",
        "SELECT k FROM dim d WHERE EXISTS (SELECT 1 FROM (SELECT v FROM fact WHERE g = 1 LIMIT 300) g WHERE g.v = d.k)",
        "SELECT k FROM dim WHERE k < (SELECT v FROM fact WHERE g = 1 LIMIT 1)",
        "SELECT k FROM dim WHERE k < (SELECT first(v) FROM fact WHERE g = 1)",
        "SELECT k FROM dim WHERE segment IN (SELECT any_value(g) FROM fact GROUP BY v % 3)")) {
      String sql = "SELECT f.k, f.v FROM fact f JOIN (" + side + ") d ON f.k = d.k";
      compareWithRuleOnAndOff(sql);
      // The IN / EXISTS subquery's own semi join may be pruned, by a filter of dim's keys: a limit on the side a
      // filter prunes is run once, as in the query.
      assertFalse(buildsFrom(spark.sql(sql), plan -> !JoinPruning.repeatable(plan)),
          () -> spark.sql(sql).queryExecution().optimizedPlan().toString());
    }
    // A repeatable subquery still builds.
    String sql = "SELECT f.k, f.v FROM fact f JOIN (SELECT k FROM dim WHERE k IN (SELECT v FROM fact WHERE g = 1)) d "
        + "ON f.k = d.k";
    compareWithRuleOnAndOff(sql);
    assertTrue(buildsFrom(spark.sql(sql), 4000), sql);
  }

  /**
   * Spark evaluates a Python UDF only once its optimizer has extracted it from the query's main plan into a Python
   * runner ({@code ExtractPythonUDFs}, a batch after the rule), never inside the plan of a subquery: a filter built
   * from a side that calls one (in a filter of the side or in its join key) failed the query ("Cannot evaluate
   * expression: PythonUDF") where it ran without the rule. No Python runs here: the UDFs are only planned.
   */
  @Test
  void neverBuildsFromASideThatCallsAPythonFunction() {
    shuffledJoinsOverSmallTables();
    spark.conf().set(RuntimeFilterConf.FORCE, "true");
    Dataset<Row> fact = spark.table("fact");
    Dataset<Row> dim = spark.table("dim");
    Dataset<Row> pythonFilter = fact.join(dim.where(python("is_small", org.apache.spark.sql.types.DataTypes.BooleanType,
        col("segment"))), fact.col("k").equalTo(dim.col("k")));
    Dataset<Row> pythonKey = fact.join(dim.where("segment < 2"),
        fact.col("k").equalTo(python("same", org.apache.spark.sql.types.DataTypes.LongType, dim.col("k"))));
    for (Dataset<Row> df : List.of(pythonFilter, pythonKey)) {
      assertFalse(buildsFrom(df, 4000), () -> df.queryExecution().optimizedPlan().toString());
    }
    // A hint is ignored there too; the same side without Python builds. (The filter of fact's keys that the forced
    // rule puts on dim is no concern: fact calls no Python.)
    assertFalse(buildsFrom(fact.hint("CUCKOO_FILTER").join(dim.where(python("is_small",
        org.apache.spark.sql.types.DataTypes.BooleanType, col("segment"))), fact.col("k").equalTo(dim.col("k"))),
        4000));
    assertTrue(buildsFrom(fact.join(dim.where("segment < 2"), fact.col("k").equalTo(dim.col("k"))), 4000));
  }

  /** A call of a Python function as PySpark plans it (no Python is needed until it runs). */
  static org.apache.spark.sql.Column python(String name, org.apache.spark.sql.types.DataType type,
      org.apache.spark.sql.Column... args) {
    org.apache.spark.api.python.SimplePythonFunction function = new org.apache.spark.api.python.SimplePythonFunction(
        new byte[0], new java.util.HashMap<>(), new ArrayList<>(), "python3", "3.11", new ArrayList<>(), null);
    List<Expression> children = new ArrayList<>();
    for (org.apache.spark.sql.Column a : args) {
      children.add(a.expr());
    }
    return new org.apache.spark.sql.Column(new org.apache.spark.sql.catalyst.expressions.PythonUDF(name, function, type,
        scala.collection.JavaConverters.asScalaBuffer(children).toSeq(),
        org.apache.spark.api.python.PythonEvalType.SQL_BATCHED_UDF(), true,
        org.apache.spark.sql.catalyst.expressions.NamedExpression.newExprId()));
  }

  @Test
  void neverBuildsFromANonDeterministicCteReadTwice() {
    shuffledJoinsOverSmallTables();
    spark.conf().set(RuntimeFilterConf.FORCE, "true");
    // Spark keeps such a CTE (it inlines every other), and by the time the rule runs each reference is a
    // repartition of the CTE's plan, with its rand(): never built from, though the fact side may still be.
    String sql = "WITH d AS (SELECT k FROM dim WHERE rand(7) < 0.5) "
        + "SELECT f.k, f.v FROM fact f JOIN d ON f.k = d.k UNION ALL SELECT k, 0 FROM d";
    assertFalse(buildsFrom(spark.sql(sql), 4000), () -> spark.sql(sql).queryExecution().optimizedPlan().toString());
    // A deterministic CTE read twice is inlined and built from.
    String deterministic = "WITH d AS (SELECT k FROM dim WHERE segment < 2) "
        + "SELECT f.k, f.v FROM fact f JOIN d ON f.k = d.k UNION ALL SELECT k, 0 FROM d";
    assertTrue(compareWithRuleOnAndOff(deterministic), deterministic);
    assertTrue(buildsFrom(spark.sql(deterministic), 4000), deterministic);
  }

  @Test
  void aJoinInsideACorrelatedSubqueryIsNeverPrunedByAFilterOfTheOuterQuerysValues() {
    shuffledJoinsOverSmallTables();
    // A scalar or lateral subquery whose correlation Spark cannot pull up as a join condition (a non-equality under
    // an aggregate) is decorrelated with a DomainJoin placeholder for the outer query's values where the correlation
    // was, here inside the dim side of the subquery's own join; the rule runs on the subquery's plan while it is
    // there, and Spark replaces the placeholder with a join only in the query's plan, never inside the filter's
    // subquery, whose build of that side could not be planned.
    for (String sql : List.of(
        "SELECT f.g, (SELECT count(*) FROM (SELECT * FROM dim d WHERE d.segment < f.g) d JOIN fact g2 "
            + "ON d.k = g2.v) AS c FROM (SELECT DISTINCT g FROM fact) f",
        "SELECT f.g, l.c FROM (SELECT DISTINCT g FROM fact) f, LATERAL (SELECT count(*) AS c FROM "
            + "(SELECT * FROM dim d WHERE d.segment < f.g) d JOIN fact g2 ON d.k = g2.v) l")) {
      for (String force : List.of("false", "true")) {
        spark.conf().set(RuntimeFilterConf.FORCE, force);
        compareWithRuleOnAndOff(sql);
      }
    }
    spark.conf().set(RuntimeFilterConf.FORCE, "false");
    spark.conf().set(RuntimeFilterConf.ENABLED, "false");
    String sql = "SELECT f.g, (SELECT count(*) FROM (SELECT * FROM dim d WHERE d.segment < f.g) d JOIN fact g2 "
        + "ON d.k = g2.v) AS c FROM (SELECT DISTINCT g FROM fact) f";
    List<String> expected = rows(spark.sql(sql));
    assertTrue(expected.containsAll(List.of("[0,0]", "[1,390]", "[2,780]", "[3,1170]")), "the subquery joins rows");
    // A hint forcing the filter on the other side is ignored there too.
    assertEquals(expected, rows(spark.sql(sql.replace("SELECT count(*)", "SELECT /*+ CUCKOO_FILTER(g2) */ count(*)"))));
  }

  @Test
  void aKeyThatFailsOnlyOnRowsTheJoinNeverSeesDoesNotFailTheQuery() {
    shuffledJoinsOverSmallTables();
    spark.conf().set(RuntimeFilterConf.FORCE, "true");
    spark.conf().set("spark.sql.ansi.enabled", "true");
    try {
      // Only fact rows whose v is a dim key (a multiple of 7) reach the outer join, and their s casts to a number;
      // the others' 'x' does not, under ANSI. Spark pushes the injected probe below the inner join, onto every row
      // of fact: the cast failed there with CAST_INVALID_INPUT, in a query that runs without the rule.
      String sql = "SELECT x.v, d.name FROM (SELECT fs.* FROM (SELECT v, CASE WHEN v % 7 = 0 THEN CAST(k AS STRING) "
          + "ELSE 'x' END AS s FROM fact) fs JOIN (SELECT k AS dk FROM dim WHERE name LIKE 'd1%') e "
          + "ON fs.v = e.dk) x JOIN dim d ON CAST(x.s AS BIGINT) = d.k WHERE d.segment < 2";
      assertTrue(compareWithRuleOnAndOff(sql), sql);
      // The probe compiled into the stage, and interpreted.
      spark.conf().set("spark.sql.codegen.wholeStage", "false");
      spark.conf().set("spark.sql.codegen.factoryMode", "NO_CODEGEN");
      assertTrue(compareWithRuleOnAndOff(sql), sql);
      spark.conf().set(RuntimeFilterConf.ENABLED, "false");
      assertTrue(spark.sql(sql).count() > 0, "the test joins rows");
    } finally {
      for (String key : List.of("spark.sql.ansi.enabled", "spark.sql.codegen.wholeStage", "spark.sql.codegen.factoryMode")) {
        spark.conf().unset(key);
      }
    }
  }

  @Test
  void aUserFunctionKeyThatFailsOnlyOnRowsTheJoinNeverSeesDoesNotFailTheQuery() {
    shuffledJoinsOverSmallTables();
    spark.conf().set(RuntimeFilterConf.FORCE, "true");
    // A user-defined function that throws reports it as a SparkException (FAILED_EXECUTE_UDF), a checked exception,
    // not a RuntimeException as an ANSI cast does: the probe pushed below the inner join calls it on every row of
    // fact, also on the 'x' rows that the inner join drops before the query calls it.
    spark.udf().register("strict_long", (org.apache.spark.sql.api.java.UDF1<String, Long>) s -> s == null ? null
        : Long.parseLong(s), org.apache.spark.sql.types.DataTypes.LongType);
    String sql = "SELECT x.v, d.name FROM (SELECT fs.* FROM (SELECT v, CASE WHEN v % 7 = 0 THEN CAST(k AS STRING) "
        + "ELSE 'x' END AS s FROM fact) fs JOIN (SELECT k AS dk FROM dim WHERE name LIKE 'd1%') e "
        + "ON fs.v = e.dk) x JOIN dim d ON strict_long(x.s) = d.k WHERE d.segment < 2";
    try {
      assertTrue(compareWithRuleOnAndOff(sql), sql);
      // The probe compiled into the stage, and interpreted.
      spark.conf().set("spark.sql.codegen.wholeStage", "false");
      spark.conf().set("spark.sql.codegen.factoryMode", "NO_CODEGEN");
      assertTrue(compareWithRuleOnAndOff(sql), sql);
      spark.conf().set(RuntimeFilterConf.ENABLED, "false");
      assertTrue(spark.sql(sql).count() > 0, "the test joins rows");
    } finally {
      for (String key : List.of("spark.sql.codegen.wholeStage", "spark.sql.codegen.factoryMode")) {
        spark.conf().unset(key);
      }
    }
  }

  @Test
  void aSideFilteredByAnInOrExistsSubqueryKeepsItsKeys() {
    shuffledJoinsOverSmallTables();
    // The rule runs before Spark rewrites IN / EXISTS subqueries into joins, and that rewrite never reaches the
    // filter's own subquery: a correlated IN there matched nothing (0 rows instead of 417), an EXISTS failed to plan
    // (ClassCastException: Project cannot be cast to SparkPlan).
    for (String side : List.of(
        "SELECT * FROM dim d WHERE d.k IN (SELECT v FROM fact g WHERE g.g = d.segment + 1)",
        "SELECT * FROM dim d WHERE d.k NOT IN (SELECT v FROM fact g WHERE g.g = d.segment AND v IS NOT NULL)",
        "SELECT * FROM dim d WHERE d.segment < 2 AND d.k NOT IN (SELECT v FROM fact g WHERE g.g = 1)",
        "SELECT * FROM dim d WHERE EXISTS (SELECT 1 FROM fact g WHERE g.v = d.k AND g.g = 1)",
        "SELECT * FROM dim d WHERE NOT EXISTS (SELECT 1 FROM fact g WHERE g.v = d.k AND g.g = 1)",
        "SELECT * FROM dim d WHERE d.segment < 3 OR EXISTS (SELECT 1 FROM fact g WHERE g.v = d.k AND g.g = 1)")) {
      String sql = "SELECT f.v FROM fact f JOIN (" + side + ") d ON f.k = d.k";
      assertTrue(compareWithRuleOnAndOff(sql), sql);
    }
    spark.conf().set(RuntimeFilterConf.ENABLED, "false");
    assertEquals(417, spark.sql("SELECT f.v FROM fact f JOIN (SELECT * FROM dim d WHERE d.k IN "
        + "(SELECT v FROM fact g WHERE g.g = d.segment + 1)) d ON f.k = d.k").count());
  }

  @Test
  void aFloatingPointJoinInsideTheBuiltSideMatchesNegativeZeroAsTheQueryDoes() {
    shuffledJoinsOverSmallTables();
    spark.conf().set(RuntimeFilterConf.FORCE, "true");
    // The join inside the side the filter is built from equates -0.0 with 0.0 (Spark normalizes floating-point join
    // keys late in optimization); the filter's own copy of that join must match them too, or the filter misses k = 0.
    spark.sql("CREATE OR REPLACE TEMP VIEW zneg AS SELECT CASE WHEN id = 0 THEN CAST('-0.0' AS DOUBLE) "
        + "ELSE CAST(id * 7 AS DOUBLE) END AS d, id * 3 AS k FROM range(0, 100)");
    spark.sql("CREATE OR REPLACE TEMP VIEW zpos AS SELECT CASE WHEN id = 0 THEN 0.0D ELSE CAST(id * 7 AS DOUBLE) END "
        + "AS d, id AS u FROM range(0, 100)");
    String sql = "SELECT f.k, f.v FROM fact f JOIN (SELECT /*+ BROADCAST(p) */ n.k FROM zneg n JOIN zpos p "
        + "ON n.d = p.d WHERE p.u < 3) j ON f.k = j.k";
    assertTrue(compareWithRuleOnAndOff(sql), sql);
    spark.conf().set(RuntimeFilterConf.ENABLED, "false");
    assertEquals(1L, spark.sql(sql + " WHERE f.k = 0").count(), "the test joins -0.0 with 0.0");
  }

  @Test
  void aSideWithStructFieldUpdatesIsBuiltFrom() {
    shuffledJoinsOverSmallTables();
    spark.conf().set(RuntimeFilterConf.FORCE, "true");
    // Column.withField and dropFields are rewritten into plain structs late in optimization, on the query's own plan
    // only: left in the filter's build, they failed the query ("Cannot generate code for expression: update_fields").
    Dataset<Row> small = spark.range(0, 200).where("id % 10 < 3").select(
        struct(col("id").as("a"))
            .withField("b", col("id").mod(2)).as("s"),
        col("id").as("w"));
    Dataset<Row> big = spark.range(0, 4000).select(
        struct(col("id").mod(300).as("a"),
            col("id").mod(2).as("b")).as("s"),
        col("id").as("v"));
    spark.conf().set(RuntimeFilterConf.ENABLED, "false");
    List<String> expected = rows(big.join(small, "s"));
    spark.conf().set(RuntimeFilterConf.ENABLED, "true");
    Dataset<Row> pruned = big.join(small, "s");
    assertTrue(injected(pruned));
    assertEquals(expected, rows(pruned));
    assertEquals(810, expected.size());
  }

  @Test
  void aDataSourceV2SideIsBuiltFrom(@TempDir Path dir) {
    shuffledJoinsOverSmallTables();
    // Spark plans a DataSource V2 table (Iceberg, a v2 catalog's, files read with spark.sql.sources.useV1SourceList
    // emptied) only once V2ScanRelationPushDown, after the rule, has made its relation a scan: the filter's build of
    // such a side failed the query ("No plan for RelationV2").
    for (String t : List.of("fact", "dim")) {
      spark.table(t).write().parquet(dir.resolve(t).toString());
    }
    spark.conf().set("spark.sql.sources.useV1SourceList", "");
    try {
      for (String t : List.of("fact", "dim")) {
        spark.read().parquet(dir.resolve(t).toString()).createOrReplaceTempView(t + "_v2");
      }
    } finally {
      spark.conf().unset("spark.sql.sources.useV1SourceList");
    }
    String sql = "SELECT f.k, f.v, d.name FROM fact_v2 f JOIN dim_v2 d ON f.k = d.k WHERE d.segment < 2";
    assertTrue(spark.sql(sql).queryExecution().analyzed().toString().contains("RelationV2"));
    assertTrue(compareWithRuleOnAndOff(sql));
  }

  @Test
  void aSideWithDistinctAggregatesOfSeveralColumnsIsBuiltFrom() {
    shuffledJoinsOverSmallTables();
    // Spark plans distinct aggregates of more than one column only once RewriteDistinctAggregates, after the rule, has
    // rewritten them: the filter's build of such a side failed the query ("You hit a query analyzer bug").
    String sql = "SELECT f.k, f.v, d.segments, d.names FROM fact f JOIN (SELECT k, count(DISTINCT segment) AS segments, "
        + "count(DISTINCT name) AS names FROM dim WHERE segment < 2 GROUP BY k) d ON f.k = d.k";
    assertTrue(compareWithRuleOnAndOff(sql));
  }

  @Test
  void aUsersProbeOnThePreservedSideOfAnOuterJoinStays() {
    shuffledJoinsOverSmallTables();
    // The probe is the user's, on the preserved side, built from that side's own rows; constraint propagation
    // copies it to the other side. RemoveInferredProbes took the original for the copy (its side reads the
    // relation the subquery builds from) and removed it: every fact row came back, null-extended.
    String probe = "cuckoo_might_contain((SELECT cuckoo_filter(k) FROM fact WHERE v < 500), k)";
    for (String sql : List.of(
        "SELECT f.k, f.v, d.name FROM (SELECT * FROM fact WHERE " + probe + ") f LEFT OUTER JOIN dim d ON f.k = d.k",
        "SELECT f.k, f.v, d.name FROM dim d RIGHT OUTER JOIN (SELECT * FROM fact WHERE " + probe + ") f ON f.k = d.k",
        "SELECT f.k, f.v FROM (SELECT * FROM fact WHERE " + probe + ") f LEFT ANTI JOIN dim d ON f.k = d.k")) {
      spark.conf().set(RuntimeFilterConf.ENABLED, "false");
      long expected = spark.sql("SELECT count(*) FROM (SELECT * FROM fact WHERE v < 500 OR k IN "
          + "(SELECT k FROM fact WHERE v < 500))").first().getLong(0);
      long rows = spark.sql(sql).count();
      assertTrue(rows <= expected + 1000, sql + ": " + rows + " rows, the probed fact side has about " + expected);
      List<String> off = rows(spark.sql(sql));
      spark.conf().set(RuntimeFilterConf.ENABLED, "true");
      assertEquals(off, rows(spark.sql(sql)), sql);
    }
  }

  @Test
  void neverPrunesAPreservedOrAntiSide() {
    shuffledJoinsOverSmallTables();
    spark.conf().set(RuntimeFilterConf.FORCE, "true");
    // Even forced: the fact side of a left outer / left anti / full outer join keeps its unmatched rows
    // (only the dim side of the first two may be pruned).
    for (String sql : List.of(
        "SELECT f.k, f.v FROM fact f LEFT OUTER JOIN (SELECT * FROM dim WHERE segment < 2) d ON f.k = d.k",
        "SELECT f.k, f.v FROM fact f LEFT ANTI JOIN (SELECT * FROM dim WHERE segment < 2) d ON f.k = d.k",
        "SELECT f.k, d.k FROM fact f FULL OUTER JOIN (SELECT * FROM dim WHERE segment < 2) d ON f.k = d.k")) {
      compareWithRuleOnAndOff(sql);
      assertFalse(prunesFact(spark.sql(sql)), sql);
    }
    // ...while an inner join does prune the fact side.
    assertTrue(prunesFact(spark.sql("SELECT f.k FROM fact f JOIN (SELECT * FROM dim WHERE segment < 2) d ON f.k = d.k")));
  }

  /** True if some cuckoo filter in the optimized plan sits above the fact table's scan (range 0..40000). */
  static boolean prunesFact(Dataset<Row> df) {
    boolean[] found = {false};
    df.queryExecution().optimizedPlan().foreach(new scala.runtime.AbstractFunction1<
        org.apache.spark.sql.catalyst.plans.logical.LogicalPlan, scala.runtime.BoxedUnit>() {
      @Override
      public scala.runtime.BoxedUnit apply(org.apache.spark.sql.catalyst.plans.logical.LogicalPlan node) {
        if (node instanceof org.apache.spark.sql.catalyst.plans.logical.Filter
            && ((org.apache.spark.sql.catalyst.plans.logical.Filter) node).condition().toString()
                .contains("cuckoo_might_contain")
            && readsRange(node.children().head(), 40000)) {
          found[0] = true;
        }
        return scala.runtime.BoxedUnit.UNIT;
      }
    });
    return found[0];
  }

  /** True if some cuckoo filter in the optimized plan is built by a subquery that reads the fact table. */
  static boolean buildsFromFact(Dataset<Row> df) {
    return buildsFrom(df, 40000);
  }

  /** True if some cuckoo filter in the optimized plan is built by a subquery that reads range(0, end). */
  static boolean buildsFrom(Dataset<Row> df, long end) {
    return buildsFrom(df, plan -> readsRange(plan, end));
  }

  /** True if some cuckoo filter in the optimized plan is built by a subquery whose plan is a {@code source}. */
  static boolean buildsFrom(Dataset<Row> df,
      java.util.function.Predicate<org.apache.spark.sql.catalyst.plans.logical.LogicalPlan> source) {
    boolean[] found = {false};
    df.queryExecution().optimizedPlan().foreach(new scala.runtime.AbstractFunction1<
        org.apache.spark.sql.catalyst.plans.logical.LogicalPlan, scala.runtime.BoxedUnit>() {
      @Override
      public scala.runtime.BoxedUnit apply(org.apache.spark.sql.catalyst.plans.logical.LogicalPlan node) {
        if (node instanceof org.apache.spark.sql.catalyst.plans.logical.Filter filter) {
          filter.condition().foreach(new scala.runtime.AbstractFunction1<
              org.apache.spark.sql.catalyst.expressions.Expression, scala.runtime.BoxedUnit>() {
            @Override
            public scala.runtime.BoxedUnit apply(org.apache.spark.sql.catalyst.expressions.Expression e) {
              if (e instanceof CuckooMightContain probe
                  && probe.filterExpression() instanceof org.apache.spark.sql.catalyst.expressions.ScalarSubquery subquery
                  && source.test(subquery.plan())) {
                found[0] = true;
              }
              return scala.runtime.BoxedUnit.UNIT;
            }
          });
        }
        return scala.runtime.BoxedUnit.UNIT;
      }
    });
    return found[0];
  }

  static boolean readsRange(org.apache.spark.sql.catalyst.plans.logical.LogicalPlan plan, long end) {
    boolean[] found = {false};
    plan.foreach(new scala.runtime.AbstractFunction1<org.apache.spark.sql.catalyst.plans.logical.LogicalPlan,
        scala.runtime.BoxedUnit>() {
      @Override
      public scala.runtime.BoxedUnit apply(org.apache.spark.sql.catalyst.plans.logical.LogicalPlan node) {
        if (node instanceof org.apache.spark.sql.catalyst.plans.logical.Range
            && ((org.apache.spark.sql.catalyst.plans.logical.Range) node).end() == end) {
          found[0] = true;
        }
        return scala.runtime.BoxedUnit.UNIT;
      }
    });
    return found[0];
  }

  @Test
  void prunesTheFactTableNotAJoinedSmallSide() {
    shuffledJoinsOverSmallTables();
    // The small side is itself a join. Without cost-based statistics Spark estimates a join's size as the
    // product of its inputs' sizes, which would make it look larger than the fact table; the rule must still
    // build from the small side and prune the fact table, not the other way round.
    String sql = "SELECT f.k, f.v, x.name FROM fact f JOIN (SELECT d.k, d.name FROM dim d JOIN dim d2 ON d.k = d2.k "
        + "WHERE d.segment < 2) x ON f.k = x.k WHERE f.g < 7";
    assertTrue(compareWithRuleOnAndOff(sql));
    Dataset<Row> on = spark.sql(sql);
    assertTrue(prunesFact(on), on.queryExecution().optimizedPlan().toString());
    assertFalse(buildsFromFact(on), on.queryExecution().optimizedPlan().toString());
  }

  @Test
  void doesNotFireWhereItMustNot() {
    // Default broadcast threshold: these tables are small enough to broadcast, nothing is shuffled.
    spark.conf().set(RuntimeFilterConf.APPLICATION_SIDE_THRESHOLD, "1KB");
    assertFalse(compareWithRuleOnAndOff("SELECT f.k, d.name FROM fact f JOIN dim d ON f.k = d.k WHERE d.segment < 2"));
    spark.conf().unset(RuntimeFilterConf.APPLICATION_SIDE_THRESHOLD);
    shuffledJoinsOverSmallTables();
    // No selective predicate on the other side: it would keep nearly every row.
    spark.sql("CREATE OR REPLACE TEMP VIEW dim_all AS SELECT id * 7 AS k, concat('d', id) AS name FROM range(0, 4000)");
    assertFalse(compareWithRuleOnAndOff("SELECT f.k, d.name FROM fact f JOIN dim_all d ON f.k = d.k"));
    // Application side below the threshold.
    spark.conf().set(RuntimeFilterConf.APPLICATION_SIDE_THRESHOLD, "1GB");
    assertFalse(compareWithRuleOnAndOff("SELECT f.k, d.name FROM fact f JOIN dim d ON f.k = d.k WHERE d.segment < 2"));
    // Not an equi-join.
    spark.conf().set(RuntimeFilterConf.FORCE, "true");
    assertFalse(compareWithRuleOnAndOff("SELECT f.k, d.name FROM fact f JOIN dim d ON f.k < d.k WHERE d.segment = 0 AND f.v < 100"));
  }

  /**
   * Where the join shuffles nothing, or not the side to prune, the rule stays out: a broadcast hint, and
   * tables bucketed on the join key (the plan without the rule is checked to have no exchange at all).
   */
  @Test
  void doesNotFireWhereTheJoinShufflesNothing(@TempDir Path dir) {
    shuffledJoinsOverSmallTables();
    String sql = "SELECT f.k, f.v, d.name FROM %s f JOIN %s d ON f.k = d.k WHERE d.segment < 2";
    assertTrue(compareWithRuleOnAndOff(String.format(sql, "fact", "dim")), "the same join shuffled is pruned");
    assertFalse(compareWithRuleOnAndOff(String.format(sql.replace("SELECT", "SELECT /*+ BROADCAST(d) */"), "fact",
        "dim")));

    for (String t : List.of("fact", "dim")) {
      spark.sql("DROP TABLE IF EXISTS " + t + "_bucketed");
      spark.sql("CREATE TABLE " + t + "_bucketed USING parquet CLUSTERED BY (k) INTO 4 BUCKETS LOCATION '"
          + dir.resolve(t).toUri() + "' AS SELECT * FROM " + t);
    }
    try {
      String bucketed = String.format(sql, "fact_bucketed", "dim_bucketed");
      spark.conf().set(RuntimeFilterConf.ENABLED, "false");
      String plan = spark.sql(bucketed).queryExecution().executedPlan().toString();
      assertFalse(plan.contains("Exchange"), "bucketed on the join key, nothing is shuffled: " + plan);
      assertFalse(compareWithRuleOnAndOff(bucketed));
      // Bucketed on another column: the join shuffles the fact side, and the rule prunes it.
      spark.sql("DROP TABLE IF EXISTS fact_bucketed_v");
      spark.sql("CREATE TABLE fact_bucketed_v USING parquet CLUSTERED BY (v) INTO 4 BUCKETS LOCATION '"
          + dir.resolve("fact_v").toUri() + "' AS SELECT * FROM fact");
      assertTrue(compareWithRuleOnAndOff(String.format(sql, "fact_bucketed_v", "dim_bucketed")));
    } finally {
      for (String t : List.of("fact_bucketed", "dim_bucketed", "fact_bucketed_v")) {
        spark.sql("DROP TABLE IF EXISTS " + t);
      }
    }
  }

  /**
   * A side under the broadcast threshold is broadcast only where the join type can build from it: an outer
   * join cannot build from its preserved side, however small, so it shuffles the big side, which is pruned.
   */
  @Test
  void prunesTheBigSideOfAnOuterJoinWhoseSmallSideIsPreserved() {
    spark.conf().set(RuntimeFilterConf.APPLICATION_SIDE_THRESHOLD, "1KB");
    String small = "(SELECT * FROM dim WHERE segment < 2)";
    long smallBytes = estimatedBytes("SELECT * FROM " + small + " d");
    long factBytes = estimatedBytes("SELECT * FROM fact");
    assertTrue(smallBytes < factBytes / 2, smallBytes + " vs " + factBytes);
    spark.conf().set("spark.sql.autoBroadcastJoinThreshold", String.valueOf((smallBytes + factBytes) / 2));

    String inner = "SELECT f.k, f.v, d.name FROM fact f JOIN " + small + " d ON f.k = d.k";
    assertFalse(compareWithRuleOnAndOff(inner), "the inner join broadcasts the small side and shuffles nothing");
    for (String sql : List.of(
        "SELECT f.k, f.v, d.name FROM " + small + " d LEFT OUTER JOIN fact f ON f.k = d.k",
        "SELECT f.k, f.v, d.name FROM fact f RIGHT OUTER JOIN " + small + " d ON f.k = d.k")) {
      spark.conf().set(RuntimeFilterConf.ENABLED, "false");
      String plan = spark.sql(sql).queryExecution().executedPlan().toString();
      assertTrue(plan.contains("SortMergeJoin"), "the preserved small side cannot be broadcast: " + plan);
      assertTrue(compareWithRuleOnAndOff(sql), sql);
      assertTrue(prunesFact(spark.sql(sql)), sql);
    }
  }

  static long estimatedBytes(String sql) {
    return spark.sql(sql).queryExecution().optimizedPlan().stats().sizeInBytes().longValue();
  }

  @Test
  void configSwitchesForceAndForbid() {
    spark.conf().set(RuntimeFilterConf.FORCE, "true"); // despite broadcastable sizes and no predicate
    assertTrue(compareWithRuleOnAndOff("SELECT f.k, d.name FROM fact f JOIN dim d ON f.k = d.k"));
    spark.conf().unset(RuntimeFilterConf.FORCE);
    shuffledJoinsOverSmallTables();
    spark.conf().set(RuntimeFilterConf.ENABLED, "false");
    assertFalse(injected(spark.sql("SELECT f.k FROM fact f JOIN dim d ON f.k = d.k WHERE d.segment < 2")));
  }

  @Test
  void aMalformedSettingIsRefusedNamingIt() {
    // A rate or count that is not a number failed every query of the session with Java's bare "For input string:
    // "1%"", naming no setting; a switch that is not true or false ("yes", a typo of "true") was taken as false.
    for (String[] setting : new String[][] {{RuntimeFilterConf.FPP, "1%"}, {RuntimeFilterConf.MAX_FILTERS, "ten"},
        {RuntimeFilterConf.ENABLED, "yes"}, {RuntimeFilterConf.FORCE, "ture"},
        {RuntimeFilterConf.REQUIRE_SELECTIVE, "no"}, {RuntimeFilterConf.SHARE_SHUFFLE, "1"}}) {
      spark.conf().set(setting[0], setting[1]);
      try {
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
            () -> spark.sql("SELECT f.k FROM fact f JOIN dim d ON f.k = d.k").queryExecution().executedPlan(),
            setting[0] + "=" + setting[1]);
        assertTrue(e.getMessage().contains(setting[0]) && e.getMessage().contains("'" + setting[1] + "'"),
            e.getMessage());
      } finally {
        spark.conf().unset(setting[0]);
      }
    }
    // A switch in other letters is still a switch, as Spark's own are.
    spark.conf().set(RuntimeFilterConf.FORCE, "TRUE");
    assertTrue(compareWithRuleOnAndOff("SELECT f.k, d.name FROM fact f JOIN dim d ON f.k = d.k"));
  }

  @Test
  void aRateNoFilterCanDeliverIsRefusedNamingTheSetting() {
    // A rate in (0, 1) below what 32-bit fingerprints deliver passed the setting's check, and the query failed in
    // the final task of the filter's build, naming neither the setting nor the rule.
    shuffledJoinsOverSmallTables();
    spark.conf().set(RuntimeFilterConf.FPP, "1e-12");
    try {
      IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
          () -> spark.sql("SELECT f.k, d.name FROM fact f JOIN dim d ON f.k = d.k WHERE d.segment < 2").collectAsList());
      assertTrue(e.getMessage().contains(RuntimeFilterConf.FPP) && e.getMessage().contains("1.0E-12"), e.getMessage());
    } finally {
      spark.conf().unset(RuntimeFilterConf.FPP);
    }
  }

  @Test
  void explainShowsTheInjectedFilter() {
    shuffledJoinsOverSmallTables();
    Dataset<Row> df = spark.sql("SELECT f.k, d.name FROM fact f JOIN dim d ON f.k = d.k WHERE d.segment < 2");
    String executed = df.queryExecution().executedPlan().toString();
    df.collect();
    String plan = df.queryExecution().explainString(org.apache.spark.sql.execution.ExplainMode.fromString("formatted"));
    assertTrue(plan.contains("cuckoo_might_contain") && plan.contains("cuckoo_filter"), plan);
    assertTrue(executed.contains("cuckoo_might_contain"), executed);
  }

  /**
   * Each injected filter counts the rows it sees and keeps: the fact rows with a key, of which it keeps
   * every match and a few false positives. The one-call join's forced filter counts too.
   */
  @Test
  void theInjectedFilterCountsTheRowsItSeesAndKeeps() {
    shuffledJoinsOverSmallTables();
    long withKey = spark.sql("SELECT count(*) FROM fact WHERE k IS NOT NULL").first().getLong(0);
    String matchingSql = "SELECT count(*) FROM fact f LEFT SEMI JOIN dim d ON f.k = d.k AND d.segment < 2";
    spark.conf().set(RuntimeFilterConf.ENABLED, "false");
    long matching = spark.sql(matchingSql).first().getLong(0);
    spark.conf().unset(RuntimeFilterConf.ENABLED);

    Dataset<Row> df = spark.sql("SELECT f.k, f.v, d.name FROM fact f JOIN dim d ON f.k = d.k WHERE d.segment < 2");
    assertEquals(matching, df.collectAsList().size());
    List<PruneMetrics> metrics = CuckooFilters.pruneMetrics(df);
    assertEquals(1, metrics.size(), metrics::toString);
    PruneMetrics m = metrics.get(0);
    assertEquals("cuckoo runtime filter on f.k", m.name());
    assertEquals(withKey, m.rowsIn(), m::toString);
    // Every match, and false positives at about the filter's rate (0.001; here at most 1% of the rows).
    assertTrue(m.rowsOut() >= matching && m.rowsOut() - matching <= withKey / 100, m + ", " + matching + " match");

    Dataset<Row> oneCall = CuckooFilters.join(spark.table("fact"), spark.table("dim").where("segment < 2"),
        List.of("k"), "inner", JoinPruning.Side.LEFT, 0.001);
    assertEquals(matching, oneCall.collectAsList().size());
    List<PruneMetrics> oneCallMetrics = CuckooFilters.pruneMetrics(oneCall);
    assertEquals(1, oneCallMetrics.size(), oneCallMetrics::toString);
    assertEquals(withKey, oneCallMetrics.get(0).rowsIn());
    assertTrue(oneCallMetrics.get(0).rowsOut() >= matching, oneCallMetrics::toString);

    // Metrics only observe: probes that differ in nothing else are equal (an exchange below either is reusable).
    CuckooMightContain probe = (CuckooMightContain) df.queryExecution().optimizedPlan()
        .collectFirst(new scala.runtime.AbstractPartialFunction<LogicalPlan, Expression>() {
          @Override
          public boolean isDefinedAt(LogicalPlan p) {
            return p instanceof Filter && ((Filter) p).condition().find(e -> e instanceof CuckooMightContain).isDefined();
          }

          @Override
          public Expression apply(LogicalPlan p) {
            return ((Filter) p).condition().find(e -> e instanceof CuckooMightContain).get();
          }
        }).get();
    assertEquals(probe, probe.withMetrics(oneCallMetrics.get(0)));
    assertEquals(probe.hashCode(), probe.withMetrics(null).hashCode());
  }

  @Test
  void theBuildReadsTheJoinsShuffleInsteadOfScanningTheSideAgain() {
    shuffledJoinsOverSmallTables();
    String sql = "SELECT f.k, f.v, d.name FROM fact f JOIN dim d ON f.k = d.k WHERE d.segment < 2";
    try {
      spark.conf().set(RuntimeFilterConf.SHARE_SHUFFLE, "false");
      List<String> expected = rows(spark.sql(sql));
      Dataset<Row> separate = spark.sql(sql);
      assertEquals(expected, rows(separate));
      ExecutedPlans unshared = ExecutedPlans.of(separate.queryExecution().executedPlan());
      assertEquals(1, unshared.subqueries.size(), "one filter built");
      assertEquals(3, unshared.scans, "fact, the join's dimension side, and the build's own dimension scan");
      assertEquals(0, unshared.reusedInSubqueries);

      spark.conf().set(RuntimeFilterConf.SHARE_SHUFFLE, "true");
      Dataset<Row> shared = spark.sql(sql);
      assertEquals(expected, rows(shared));
      ExecutedPlans count = ExecutedPlans.of(shared.queryExecution().executedPlan());
      assertEquals(1, count.subqueries.size(), "one filter built");
      assertEquals(2, count.scans, "fact and dimension, each scanned once");
      assertEquals(1, count.reusedInSubqueries, "the build reads the join's shuffle of the dimension side");
    } finally {
      spark.conf().unset(RuntimeFilterConf.SHARE_SHUFFLE);
    }
  }

  /**
   * The DataFrame API's lazily built filters read the join's shuffle too: the one-call join's (a forced
   * runtime filter, at its own fpp, though the rule is off), and that of {@code prune} of a side later joined
   * with the filter's source (its subquery's copy of the source has attributes of its own) where the join
   * reads exactly the rows and columns the build reads.
   */
  @Test
  void theDataFrameApisBuildsReadTheJoinsShuffleToo() {
    shuffledJoinsOverSmallTables();
    spark.conf().set(RuntimeFilterConf.ENABLED, "false");
    Dataset<Row> fact = spark.table("fact");
    Dataset<Row> dim = spark.table("dim").where("segment < 2").select("k", "name");
    // (Keys without nulls: the null check of prune's build and the one the join infers are then both gone.)
    Dataset<Row> dimKeys = spark.range(0, 4000).selectExpr("id * 7 AS k", "CAST(id % 10 AS INT) AS segment")
        .where("segment < 2").select("k");
    Dataset<Row> oneCall = dev.cuckoofilter.spark.CuckooFilters.join(fact, dim, List.of("k"), "inner",
        dev.cuckoofilter.spark.prune.JoinPruning.Side.LEFT, 0.0001);
    assertTrue(oneCall.queryExecution().optimizedPlan().toString().contains(", 1.0E-4, "), // cuckoo_filter(key, 0, fpp, ...)
        oneCall.queryExecution().optimizedPlan().toString());
    Dataset<Row> lazyPrune = dev.cuckoofilter.spark.CuckooFilters.prune(fact, dimKeys, 0.001, "k").join(dimKeys, "k");
    for (Dataset<Row> joined : List.of(oneCall, lazyPrune)) {
      Dataset<Row> unpruned = joined == oneCall ? fact.join(dim, "k") : fact.join(dimKeys, "k");
      assertEquals(rows(unpruned), rows(joined));
      ExecutedPlans plans = ExecutedPlans.of(joined.queryExecution().executedPlan());
      assertEquals(1, plans.subqueries.size(), "one filter built");
      assertEquals(1, plans.mapSideBuilds.size(), () -> "built from the map tasks of the join's shuffle: "
          + joined.queryExecution().executedPlan());
      assertEquals(spark.sparkContext().defaultParallelism(), plans.mapSideBuilds.get(0).tappedPartitions());
      assertEquals(2, plans.scans, "fact and dimension, each scanned once");
      assertEquals(1, plans.reusedInSubqueries, "one shuffle of the dimension side");
      assertTrue(plans.onlySubqueryResult().length > 0);
    }
  }

  @Test
  void theFilterIsBuiltFromTheMapTasksOfTheJoinsShuffle() {
    shuffledJoinsOverSmallTables();
    String sql = "SELECT f.k, f.v, d.name FROM fact f JOIN dim d ON f.k = d.k WHERE d.segment < 2";
    try {
      // Off: the filter is aggregated from the shuffle's output (a partial and a final stage).
      spark.conf().set(RuntimeFilterConf.MAP_SIDE_BUILD_MAX_BYTES, "0");
      Dataset<Row> aggregated = spark.sql(sql);
      List<String> expected = rows(aggregated);
      ExecutedPlans viaAggregate = ExecutedPlans.of(aggregated.queryExecution().executedPlan());
      assertEquals(0, viaAggregate.mapSideBuilds.size());
      byte[] filter = viaAggregate.onlySubqueryResult();

      // On (the default): the same filter, byte for byte, from what the map tasks collected.
      spark.conf().unset(RuntimeFilterConf.MAP_SIDE_BUILD_MAX_BYTES);
      Dataset<Row> mapSide = spark.sql(sql);
      assertEquals(expected, rows(mapSide));
      ExecutedPlans tapped = ExecutedPlans.of(mapSide.queryExecution().executedPlan());
      assertEquals(1, tapped.mapSideBuilds.size());
      MapSideFilterBuildExec build = tapped.mapSideBuilds.get(0);
      assertEquals(spark.sparkContext().defaultParallelism(), build.tappedPartitions(), "every map partition");
      assertEquals(0, build.shuffleReads());
      assertEquals(2, tapped.scans, "fact and dimension, each scanned once");
      assertEquals(1, tapped.reusedInSubqueries, "one shuffle of the dimension side");
      assertArrayEquals(filter, tapped.onlySubqueryResult());
      String explained = mapSide.queryExecution().explainString(org.apache.spark.sql.execution.ExplainMode.fromString("simple"));
      assertTrue(explained.contains("CuckooMapSideFilterBuild") && explained.contains("CuckooFilterTap"), explained);

      // Over the byte budget (every partition gives up): the build reads the shuffle instead, same filter.
      spark.conf().set(RuntimeFilterConf.MAP_SIDE_BUILD_MAX_BYTES, "1");
      Dataset<Row> overBudget = spark.sql(sql);
      assertEquals(expected, rows(overBudget));
      ExecutedPlans fallback = ExecutedPlans.of(overBudget.queryExecution().executedPlan());
      assertEquals(0, fallback.mapSideBuilds.get(0).tappedPartitions());
      assertEquals(1, fallback.mapSideBuilds.get(0).shuffleReads());
      assertArrayEquals(filter, fallback.onlySubqueryResult());
    } finally {
      spark.conf().unset(RuntimeFilterConf.MAP_SIDE_BUILD_MAX_BYTES);
    }
  }

  /**
   * A shuffle whose map partitions repeat few keys many times (a fact-like side) is within the map-side budget:
   * the partial builds hold distinct keys, not rows.
   */
  @Test
  void theMapTasksBuildTheFilterOfManyRowsOfFewKeys() {
    shuffledJoinsOverSmallTables();
    // Two map partitions of about 66,700 rows each, of the same 500 keys: parts of a few KB in a 64KB budget, where
    // each partition may send up to 64KB. The tap gave up after 16,384 rows (64KB over 4 bytes), as if every row
    // were a key, and the filter was built by reading the shuffle again.
    String side = "(SELECT (id % 500) * 7 AS k FROM range(0, 200000) WHERE id % 3 > 0) r";
    String sql = "SELECT /*+ CUCKOO_FILTER(f), NO_CUCKOO_FILTER(r) */ f.k, f.v FROM fact f LEFT SEMI JOIN " + side
        + " ON f.k = r.k";
    try {
      spark.conf().set(RuntimeFilterConf.ENABLED, "false");
      List<String> expected = rows(spark.sql("SELECT f.k, f.v FROM fact f LEFT SEMI JOIN " + side + " ON f.k = r.k"));
      assertTrue(expected.size() > 900, "the test joins rows");
      spark.conf().unset(RuntimeFilterConf.ENABLED);
      spark.conf().set(RuntimeFilterConf.MAP_SIDE_BUILD_MAX_BYTES, "64KB");
      Dataset<Row> pruned = spark.sql(sql);
      assertEquals(expected, rows(pruned));
      ExecutedPlans plans = ExecutedPlans.of(pruned.queryExecution().executedPlan());
      assertEquals(1, plans.mapSideBuilds.size(), () -> pruned.queryExecution().executedPlan().toString());
      MapSideFilterBuildExec build = plans.mapSideBuilds.get(0);
      assertEquals(0, build.shuffleReads(), "built from the map tasks' parts, not by reading the shuffle");
      assertEquals(spark.sparkContext().defaultParallelism(), build.tappedPartitions(), "every map partition");
    } finally {
      spark.conf().unset(RuntimeFilterConf.MAP_SIDE_BUILD_MAX_BYTES);
    }
  }

  /**
   * The filter is sized from the build side's exact distinct keys, with no cap: 5M keys (Spark's runtime bloom
   * filter stops at 4M items) get a filter of 5M items at the configured rate, and the join keeps every match.
   */
  @Test
  void theFilterIsSizedFromTheBuildSideWithNoCap() throws Exception {
    shuffledJoinsOverSmallTables();
    spark.conf().set(RuntimeFilterConf.FPP, "0.002");
    try {
      String sql = "SELECT /*+ CUCKOO_FILTER(f) */ f.k, f.v FROM (SELECT id * 61 AS k, id AS v FROM range(0, 200000)) f "
          + "JOIN (SELECT id * 2 AS k FROM range(0, 5000000)) d ON f.k = d.k";
      Dataset<Row> df = spark.sql(sql);
      List<Row> joined = df.collectAsList();
      assertEquals(81968, joined.size(), "f.k = 61 * id is even and below 10M for every even id below 163,935");
      dev.cuckoofilter.core.CuckooFilter filter = dev.cuckoofilter.core.CuckooFilter.fromByteArray(
          ExecutedPlans.of(df.queryExecution().executedPlan()).onlySubqueryResult());
      // Its entries: one per key, except where two keys' (bucket, fingerprint) coincide and share one.
      assertTrue(filter.size() > 4_990_000 && filter.size() <= 5_000_000, () -> "entries " + filter.size());
      assertTrue(filter.capacity() >= 5_000_000 && filter.capacity() < 5_500_000, () -> "capacity " + filter.capacity());
      assertTrue(filter.expectedFpp() <= 0.002, () -> "expected fpp " + filter.expectedFpp());
      List<PruneMetrics> counts = CuckooFilters.pruneMetrics(df);
      assertEquals(1, counts.size(), counts::toString);
      assertEquals(200_000, counts.get(0).rowsIn());
      // Every match, and false positives near the filter's rate among the 118,032 others (5 sigma: 0.2% is 236).
      long falsePositives = counts.get(0).rowsOut() - joined.size();
      assertTrue(falsePositives >= 0 && falsePositives < 236 + 5 * Math.sqrt(236), () -> counts + ", " + joined.size());
    } finally {
      spark.conf().unset(RuntimeFilterConf.FPP);
    }
  }
}
