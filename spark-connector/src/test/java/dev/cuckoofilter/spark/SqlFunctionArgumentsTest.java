package dev.cuckoofilter.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Arguments of the SQL functions that no filter can be built or probed with fail at analysis, with a
 * message naming the function and the argument, never inside tasks or with an internal error.
 */
class SqlFunctionArgumentsTest {
  static SparkSession spark;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.local();
    spark.sql("CREATE OR REPLACE TEMP VIEW sfa_dim AS SELECT id * 4 AS k, CAST(id * 4 AS STRING) AS s FROM range(0, 100)");
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  static String analysisError(String sql) {
    Exception e = assertThrows(Exception.class, () -> spark.sql(sql).collect(), sql);
    assertTrue(e instanceof AnalysisException, () -> "expected an analysis error for " + sql + ", got " + e);
    return e.getMessage();
  }

  static void assertMentions(String message, String... parts) {
    for (String part : parts) {
      assertTrue(message.contains(part), () -> "'" + part + "' missing from: " + message);
    }
  }

  @Test
  void anUnsupportedColumnOfACompositeKeyIsNamedByItsPosition() {
    // filterOf takes the key columns as arguments 1..n: the second one is named, not the first.
    Exception e = assertThrows(AnalysisException.class, () -> spark.table("sfa_dim")
        .agg(CuckooFilters.filterOf(functions.col("k"), functions.array(functions.col("k")))).collect());
    assertMentions(e.getMessage(), "cuckoo_filter", "argument 2 (key)", "array<bigint>");
    assertTrue(!e.getMessage().contains("argument 1 (key)"), e.getMessage());
  }

  @Test
  void sizesAndRatesNoFilterCanHaveFailAtAnalysis() {
    // Too many keys for the largest table: refused before a task runs, with the number given.
    assertMentions(analysisError("SELECT cuckoo_filter(k, 9223372036854775807) FROM sfa_dim"),
        "cuckoo_filter", "argument 2 (expectedItems)", "9223372036854775807");
    // A decimal literal beyond 64 bits is not wrapped around into another number.
    assertMentions(analysisError("SELECT cuckoo_filter(k, 100000000000000000000) FROM sfa_dim"),
        "cuckoo_filter", "argument 2 (expectedItems)", "100000000000000000000");
    // Rates in (0, 1) that 32-bit fingerprints cannot deliver, with or without a size.
    assertMentions(analysisError("SELECT cuckoo_filter(k, 100, 1e-15) FROM sfa_dim"), "cuckoo_filter", "argument 3 (fpp)");
    assertMentions(analysisError("SELECT cuckoo_filter(k, NULL, 1e-15) FROM sfa_dim"), "cuckoo_filter", "argument 3 (fpp)");
    // An integer rate is a number: the message says what is wrong with it.
    assertMentions(analysisError("SELECT cuckoo_filter(k, 100, 1) FROM sfa_dim"), "argument 3 (fpp) must be in (0, 1)");
    // The columns of a composite key given as separate arguments (as filterOf takes them): the message shows the
    // struct that makes them one key.
    assertMentions(analysisError("SELECT cuckoo_filter(k, k + 1) FROM sfa_dim"), "cuckoo_filter",
        "argument 2 (expectedItems) must be an integer constant", "cuckoo_filter(struct(");
    // Sizes given as decimals of scale 0 (any precision) are fine.
    assertEquals(1, spark.sql("SELECT cuckoo_filter(k, CAST(100 AS DECIMAL(30, 0)), 0.01) FROM sfa_dim").count());
  }

  /**
   * A filter sized from the data has a table of any size, and a larger table needs a higher rate for 32-bit
   * fingerprints (its design load is higher): 7e-10 is within reach of a table for one key (at least 6.5e-10), so
   * it passed analysis, but not of one for 100 keys (7.3e-10) or more (7.8e-10): the job ran and its final task
   * failed, or not, depending on how many keys the data held. It fails at analysis, as with an expectedItems.
   */
  @Test
  void aRateNoFilterSizedFromTheDataCanHaveFailsBeforeAnyJob() {
    assertMentions(analysisError("SELECT cuckoo_filter(k, NULL, 7e-10) FROM sfa_dim"), "cuckoo_filter",
        "argument 3 (fpp)", "7.0E-10", "sized from the data");
    assertMentions(assertThrows(IllegalArgumentException.class,
        () -> CuckooFilters.filterOf(0, 7e-10, functions.col("k"))).getMessage(), "7.0E-10", "sized from the data");
    assertMentions(assertThrows(IllegalArgumentException.class,
        () -> CuckooFilters.builder(spark.table("sfa_dim")).keys("k").fpp(7e-10).exactCount(true).build()).getMessage(),
        "7.0E-10", "sized from the data");
    assertMentions(assertThrows(IllegalArgumentException.class,
        () -> CuckooFilters.prune(spark.range(0, 400).toDF("k"), spark.table("sfa_dim"), 7e-10, "k")).getMessage(),
        "7.0E-10", "sized from the data");
    // With a size the rate is checked for that size: a filter of a few keys can have it.
    assertEquals(1, spark.sql("SELECT cuckoo_filter(k, 10, 7e-10) FROM sfa_dim WHERE k < 40").count());
    assertEquals(10, CuckooFilters.builder(spark.table("sfa_dim").where("k < 40")).keys("k").fpp(7e-10)
        .expectedItems(10).build().filter().size());
    // A rate every size can have is fine without one.
    assertEquals(1, spark.sql("SELECT cuckoo_filter(k, NULL, 8e-10) FROM sfa_dim").count());
  }

  /**
   * A filter is returned as one BINARY value, a Java array: a size whose filter cannot fit one passed analysis
   * (anything up to 33.6 billion keys, the largest table), and the job then ran out of memory in the final task,
   * or failed after the whole build with "too large for a byte array; use writeTo". Only analysis runs here.
   */
  @Test
  void aSizeWhoseFilterOutgrowsABinaryValueFailsAtAnalysis() {
    Exception e = assertThrows(AnalysisException.class,
        () -> spark.sql("SELECT cuckoo_filter(k, 3000000000) FROM sfa_dim"));
    assertMentions(e.getMessage(), "cuckoo_filter", "argument 2 (expectedItems)", "3000000000", "BINARY");
    e = assertThrows(IllegalArgumentException.class,
        () -> CuckooFilters.filterOf(3_000_000_000L, 0.01, org.apache.spark.sql.functions.col("k")));
    assertMentions(e.getMessage(), "expectedItems", "3000000000", "BINARY");
    // A billion keys at 1% fit (about 1.6 GB); a higher rate lets more fit.
    CuckooFilters.filterOf(1_000_000_000L, 0.01, org.apache.spark.sql.functions.col("k"));
    CuckooFilters.filterOf(2_000_000_000L, 0.2, org.apache.spark.sql.functions.col("k"));
    // Sized from the data (no expectedItems): about 1M distinct keys with 1000x headroom at fpp 1e-8 (30-bit
    // fingerprints) need about 4 GB. Refused before the build, saying where the size came from.
    e = assertThrows(IllegalArgumentException.class, () -> CuckooFilters.builder(spark.range(0, 1_000_000))
        .keys("id").fpp(1e-8).headroom(1000).build());
    assertMentions(e.getMessage(), "estimated distinct count", "headroom 1000", "BINARY");
  }

  /** The innermost IllegalArgumentException of a failure, whatever wraps it (task failures, awaitResult). */
  static String illegalArgument(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof IllegalArgumentException) {
        return t.getMessage();
      }
    }
    throw new AssertionError("no IllegalArgumentException in " + e, e);
  }

  @Test
  void bytesThatAreNoFilterNameTheFunctionWhereverTheyComeFrom() {
    // Constants: at analysis, for both functions.
    assertMentions(analysisError("SELECT cuckoo_might_contain(X'00', 4)"),
        "cuckoo_might_contain: argument 1 (filter) is not a valid cuckoo filter");
    assertMentions(analysisError("SELECT cuckoo_filter_info(X'0001')"),
        "cuckoo_filter_info: argument 1 (filter) is not a valid cuckoo filter");
    // A subquery the optimizer turns into a constant: the query used to fail with Spark's internal
    // "Invalid call to exprId on unresolved object"; now the probe names itself when it reads the bytes.
    for (String subquery : new String[] {"(SELECT X'00')", "(SELECT X'00' AS b)", "(SELECT b FROM VALUES (X'0102') AS t(b))"}) {
      Exception e = assertThrows(Exception.class,
          () -> spark.sql("SELECT cuckoo_might_contain(" + subquery + ", k) FROM sfa_dim").collect());
      assertMentions(illegalArgument(e), "cuckoo_might_contain: argument 1 (filter) is not a valid cuckoo filter");
    }
    // Valid bytes through such a subquery work.
    byte[] bytes = (byte[]) spark.sql("SELECT cuckoo_filter(k, 100, 0.001) FROM sfa_dim").first().get(0);
    String literal = "X'" + java.util.HexFormat.of().formatHex(bytes) + "'";
    assertEquals(true, spark.sql("SELECT cuckoo_might_contain((SELECT " + literal + "), 8L)").first().get(0));
    assertEquals(null, spark.sql("SELECT cuckoo_might_contain((SELECT CAST(NULL AS BINARY)), 8L)").first().get(0));
  }

  @Test
  void keysThatHashOtherwiseThanTheSubquerysFilterAreRefused() {
    // A string or a double never hashes like the bigint it equals: these probes answered false for keys
    // that are in the filter (2 and 4 of 400 rows kept instead of 100).
    String filter = "(SELECT cuckoo_filter(k) FROM sfa_dim)";
    assertMentions(analysisError("SELECT cuckoo_might_contain(" + filter + ", CAST(id AS STRING)) FROM range(0, 400)"),
        "cuckoo_might_contain", "argument 2 (key)", "string", "bigint");
    assertMentions(analysisError("SELECT cuckoo_might_contain((SELECT f FROM (SELECT cuckoo_filter(k) AS f FROM sfa_dim)), "
        + "CAST(id AS DOUBLE)) FROM range(0, 400)"), "cuckoo_might_contain", "argument 2 (key)", "double");
    assertMentions(analysisError("SELECT cuckoo_might_contain((SELECT cuckoo_filter(struct(k, s)) FROM sfa_dim), "
        + "struct(s, k)) FROM sfa_dim"), "cuckoo_might_contain", "argument 2 (key)");
    assertMentions(analysisError("SELECT cuckoo_might_contain((SELECT cuckoo_filter(k, 100, 0.01) FROM sfa_dim), "
        + "CAST(k AS DECIMAL(20, 2))) FROM sfa_dim"), "cuckoo_might_contain", "argument 2 (key)");
    // Keys that hash alike are fine: integer widths, a struct and its fields as several arguments.
    assertEquals(100, spark.sql("SELECT * FROM range(0, 400) WHERE cuckoo_might_contain(" + filter
        + ", CAST(id AS INT)) AND id % 4 = 0").count());
    assertEquals(100, spark.sql("SELECT * FROM sfa_dim WHERE cuckoo_might_contain("
        + "(SELECT cuckoo_filter(struct(k, s)) FROM sfa_dim), CAST(k AS INT), s)").count());
  }

  /**
   * A struct key with the fields of the subquery's struct key in another order (the same data read back from JSON,
   * whose schema inference sorts struct fields by name) hashes other keys: such a probe passed the check, whose
   * categories name no fields, and kept only false positives of the 1000 rows the filter was built from. Spark's own comparison of
   * the two structs fails at analysis; so does the probe now.
   */
  @Test
  void aStructKeyWithTheFiltersFieldsInAnotherOrderIsRefused() {
    String filter = "(SELECT cuckoo_filter(named_struct('zip', CAST(id AS STRING), 'city', concat('c', id))) "
        + "FROM range(0, 1000))";
    assertMentions(analysisError("SELECT count(*) FROM range(0, 1000) WHERE cuckoo_might_contain(" + filter
        + ", named_struct('city', concat('c', id), 'zip', CAST(id AS STRING)))"), "cuckoo_might_contain",
        "argument 2 (key)", "another order", "struct<city:string,zip:string> vs struct<zip:string,city:string>");
    // At any depth.
    assertMentions(analysisError("SELECT count(*) FROM range(0, 1000) WHERE cuckoo_might_contain((SELECT cuckoo_filter("
        + "named_struct('n', id, 'm', named_struct('x', id, 'y', id))) FROM range(0, 1000)), "
        + "named_struct('n', id, 'm', named_struct('y', id, 'x', id)))"), "argument 2 (key)", "another order");
    // In the filter's order, or with other names (positional), the probe is fine.
    assertEquals(1000, spark.sql("SELECT count(*) FROM range(0, 1000) WHERE cuckoo_might_contain(" + filter
        + ", named_struct('zip', CAST(id AS STRING), 'city', concat('c', id)))").first().getLong(0));
    assertEquals(1000, spark.sql("SELECT count(*) FROM range(0, 1000) WHERE cuckoo_might_contain(" + filter
        + ", struct(CAST(id AS STRING), concat('c', id)))").first().getLong(0));
  }

  @Test
  void aFilterPickedFromAUnionIsNotCheckedAgainstItsFirstBranchOnly() {
    // A union's output attribute is its first branch's: the check followed it to cuckoo_filter(k) and refused
    // the string probe of the second branch's filter of s ("does not hash like the keys of the filter,
    // cuckoo_filter(k) of type bigint"), a query that returns all 100 rows.
    String union = "(SELECT f FROM (SELECT 1 AS g, cuckoo_filter(k) AS f FROM sfa_dim UNION ALL "
        + "SELECT 2, cuckoo_filter(s) FROM sfa_dim) WHERE g = %d)";
    assertEquals(100, spark.sql("SELECT * FROM sfa_dim WHERE cuckoo_might_contain(" + String.format(union, 2) + ", s)")
        .count());
    assertEquals(100, spark.sql("SELECT * FROM sfa_dim WHERE cuckoo_might_contain(" + String.format(union, 1) + ", k)")
        .count());
  }

  @Test
  void untypedNullKeysAndFiltersAreNullsNotTypeErrors() throws Exception {
    // A bare NULL has Spark's type void: as a key it is a null key (false, left out of the build), as a
    // filter a null filter (null), compiled and interpreted. All five failed at analysis with
    // "unsupported type void" or "must be BINARY, not void".
    String filter = "(SELECT cuckoo_filter(k) FROM sfa_dim)";
    String[] interpreted = {"spark.sql.codegen.wholeStage", "spark.sql.codegen.factoryMode"};
    for (boolean codegen : new boolean[] {true, false}) {
      try {
        if (!codegen) {
          spark.conf().set(interpreted[0], "false");
          spark.conf().set(interpreted[1], "NO_CODEGEN");
        }
        java.util.List<org.apache.spark.sql.Row> rows = spark.sql("SELECT cuckoo_might_contain(" + filter + ", NULL), "
            + "cuckoo_might_contain(" + filter + ", k, NULL), cuckoo_might_contain(NULL, k), cuckoo_filter_info(NULL) "
            + "FROM sfa_dim").collectAsList();
        assertEquals(100, rows.size());
        for (org.apache.spark.sql.Row r : rows) {
          assertEquals(false, r.get(0), "codegen " + codegen);
          assertEquals(false, r.get(1), "codegen " + codegen);
          assertTrue(r.isNullAt(2) && r.isNullAt(3), "codegen " + codegen);
        }
        byte[] empty = (byte[]) spark.sql("SELECT cuckoo_filter(NULL) FROM sfa_dim").first().get(0);
        assertEquals(0, dev.cuckoofilter.core.CuckooFilter.fromByteArray(empty).size(), "codegen " + codegen);
      } finally {
        for (String c : interpreted) {
          spark.conf().unset(c);
        }
      }
    }
    // A typed key that is not a key type is still refused.
    assertMentions(analysisError("SELECT cuckoo_might_contain(" + filter + ", array(k)) FROM sfa_dim"),
        "cuckoo_might_contain", "argument 2 (key)", "array<bigint>");
  }

  @Test
  void tooSmallASizeNamesBothNumbersAndNoWrongOne() {
    // 400 distinct keys in a filter sized for 10: the build counts distinct entries of that small table,
    // which keys share, and reported them as "the input has 2xx distinct keys".
    Exception e = assertThrows(Exception.class,
        () -> spark.sql("SELECT cuckoo_filter(id, 10) FROM range(0, 400)").collect());
    Throwable t = e;
    while (t != null && !(t instanceof IllegalStateException)) {
      t = t.getCause();
    }
    assertTrue(t != null, () -> "no IllegalStateException in " + e);
    String m = t.getMessage();
    assertMentions(m, "cuckoo_filter", "10 expectedItems", "at least");
    java.util.regex.Matcher n = java.util.regex.Pattern.compile("at least (\\d+) distinct keys").matcher(m);
    assertTrue(n.find(), m);
    assertTrue(Long.parseLong(n.group(1)) > 10 && Long.parseLong(n.group(1)) <= 400, m);
  }

  /**
   * Two filters built from the same relation (a dimension's two keys): Spark's MergeScalarSubqueries computes
   * both in one subquery and hands each probe a field of its struct, {@code (SELECT named_struct(...)).f}. The
   * probe's check took that for neither a constant nor a subquery: the optimized plan held an unresolved
   * {@code 'Filter} (right rows, but {@code spark.sql.planChangeValidation=true} failed the query with
   * PLAN_VALIDATION_FAILED_RULE_IN_BATCH), in SQL and for two one-call prunes by the same side.
   */
  @Test
  void filtersThatSparkMergesIntoOneSubqueryStayResolved() {
    spark.sql("CREATE OR REPLACE TEMP VIEW sfa_fact AS SELECT id % 500 AS a, CAST(id % 300 AS STRING) AS b, id AS v "
        + "FROM range(0, 4000)");
    String sql = "SELECT count(*) FROM sfa_fact WHERE cuckoo_might_contain((SELECT cuckoo_filter(k) FROM sfa_dim "
        + "WHERE k < 200), a) AND cuckoo_might_contain((SELECT cuckoo_filter(s) FROM sfa_dim WHERE k < 200), b)";
    long exact = spark.sql("SELECT count(*) FROM sfa_fact WHERE a IN (SELECT k FROM sfa_dim WHERE k < 200) "
        + "AND b IN (SELECT s FROM sfa_dim WHERE k < 200)").first().getLong(0);
    org.apache.spark.sql.Dataset<org.apache.spark.sql.Row> fact = spark.table("sfa_fact");
    org.apache.spark.sql.Dataset<org.apache.spark.sql.Row> dim = spark.table("sfa_dim").where("k < 200")
        .selectExpr("k AS a", "s AS b");
    org.apache.spark.sql.Dataset<org.apache.spark.sql.Row> pruned =
        CuckooFilters.prune(CuckooFilters.prune(fact, dim, 0.0001, "a"), dim, 0.0001, "b");
    for (org.apache.spark.sql.Dataset<org.apache.spark.sql.Row> query : java.util.List.of(spark.sql(sql), pruned)) {
      String optimized = query.queryExecution().optimizedPlan().toString();
      assertTrue(optimized.contains("mergedValue"), () -> "Spark did not merge the filters' subqueries:\n" + optimized);
      assertTrue(query.queryExecution().optimizedPlan().resolved(), () -> "unresolved:\n" + optimized);
    }
    spark.conf().set("spark.sql.planChangeValidation", "true");
    try {
      long count = spark.sql(sql).first().getLong(0);
      assertTrue(count >= exact && count <= exact + 40, count + " rows, " + exact + " match");
      assertEquals(fact.join(dim, scala.collection.JavaConverters.asScalaBuffer(java.util.List.of("a", "b")).toSeq(),
          "left_semi").count(), pruned.join(dim, scala.collection.JavaConverters.asScalaBuffer(
          java.util.List.of("a", "b")).toSeq(), "left_semi").count());
    } finally {
      spark.conf().unset("spark.sql.planChangeValidation");
    }
  }
}
