package dev.cuckoofilter.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoofilter.core.CuckooFilter;
import java.util.HexFormat;
import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The SQL functions, enabled through spark.sql.extensions in a fresh session. */
class SqlFunctionsTest {
  static SparkSession spark;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.local();
    spark.sql("CREATE OR REPLACE TEMP VIEW fact AS SELECT id AS k, id % 10 AS g, CAST(id AS STRING) AS s FROM range(0, 20000)");
    spark.sql("CREATE OR REPLACE TEMP VIEW dim AS SELECT id * 4 AS k, CAST(id * 4 AS STRING) AS s FROM range(0, 1000)");
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  @Test
  void probeWithAScalarSubqueryOrAConstant() {
    long viaSubquery = spark.sql("SELECT count(*) FROM fact WHERE cuckoo_might_contain("
        + "(SELECT cuckoo_filter(k, 1000, 0.0001) FROM dim), k)").first().getLong(0);
    assertTrue(viaSubquery >= 1000 && viaSubquery < 1010, "rows " + viaSubquery);
    long exact = spark.sql("SELECT count(*) FROM fact f LEFT SEMI JOIN dim d ON f.k = d.k").first().getLong(0);
    assertEquals(1000, exact);

    byte[] bytes = (byte[]) spark.sql("SELECT cuckoo_filter(s, 1000, 0.0001) FROM dim").first().get(0);
    String literal = "X'" + HexFormat.of().formatHex(bytes) + "'";
    long viaConstant = spark.sql("SELECT count(*) FROM fact WHERE cuckoo_might_contain(" + literal + ", s)").first()
        .getLong(0);
    assertTrue(viaConstant >= 1000 && viaConstant < 1010, "rows " + viaConstant);
    // Composite keys as a struct.
    long composite = spark.sql("SELECT count(*) FROM fact WHERE cuckoo_might_contain("
        + "(SELECT cuckoo_filter(struct(k, s)) FROM dim), struct(k, s))").first().getLong(0);
    // Sized from the data at the default fpp of 1%: about 190 of the 19,000 other rows pass too.
    assertTrue(composite >= 1000 && composite < 1300, "rows " + composite);
    // Null keys never match; a null filter gives null.
    assertEquals(false, spark.sql("SELECT cuckoo_might_contain((SELECT cuckoo_filter(k) FROM dim), CAST(NULL AS BIGINT))")
        .first().get(0));
    assertEquals(null, spark.sql("SELECT cuckoo_might_contain(CAST(NULL AS BINARY), 1L)").first().get(0));
  }

  @Test
  void theProbeIsCompiledIntoTheStage() {
    String plan = spark.sql("SELECT * FROM fact WHERE cuckoo_might_contain((SELECT cuckoo_filter(k) FROM dim), k)")
        .queryExecution().executedPlan().toString();
    assertTrue(plan.contains("*(") && plan.contains("Filter cuckoo_might_contain"), plan);
  }

  @Test
  void infoDescribesTheFilter() throws Exception {
    Row info = spark.sql("SELECT cuckoo_filter_info(cuckoo_filter(k, 2000, 0.001)) AS i FROM dim").first().getStruct(0);
    byte[] bytes = (byte[]) spark.sql("SELECT cuckoo_filter(k, 2000, 0.001) FROM dim").first().get(0);
    CuckooFilter f = CuckooFilter.fromByteArray(bytes);
    assertEquals(f.parameters().variant(), info.getAs("variant"));
    assertEquals(f.size(), (long) info.getAs("items"));
    assertEquals(f.capacity(), (long) info.getAs("capacity"));
    assertEquals(f.expectedFpp(), (double) info.getAs("expectedFpp"), 1e-15);
    assertEquals(2000L, (long) info.getAs("expectedItems"));
    assertEquals(0.001, (double) info.getAs("targetFpp"), 1e-15);
    assertEquals(bytes.length, (long) info.getAs("serializedBytes"));
  }

  static String analysisError(String sql) {
    Exception e = assertThrows(Exception.class, () -> spark.sql(sql).collect());
    assertTrue(e instanceof AnalysisException, () -> "expected an analysis error, got " + e);
    return e.getMessage();
  }

  @Test
  void badArgumentsFailAtAnalysisNamingTheFunctionAndArgument() {
    String m = analysisError("SELECT cuckoo_might_contain(123, k) FROM fact");
    assertTrue(m.contains("cuckoo_might_contain") && m.contains("argument 1 (filter)"), m);
    m = analysisError("SELECT cuckoo_might_contain(CAST(s AS BINARY), k) FROM fact");
    assertTrue(m.contains("cuckoo_might_contain") && m.contains("constant"), m);
    m = analysisError("SELECT cuckoo_might_contain(X'00010203', k) FROM fact");
    assertTrue(m.contains("cuckoo_might_contain") && m.contains("not a valid cuckoo filter"), m);
    m = analysisError("SELECT cuckoo_filter(k, 100, 1.5) FROM fact");
    assertTrue(m.contains("cuckoo_filter") && m.contains("argument 3 (fpp)"), m);
    m = analysisError("SELECT cuckoo_filter(k, g) FROM fact");
    assertTrue(m.contains("cuckoo_filter") && m.contains("argument 2 (expectedItems)"), m);
    m = analysisError("SELECT cuckoo_filter(k, -5) FROM fact");
    assertTrue(m.contains("argument 2 (expectedItems) must be positive"), m);
    m = analysisError("SELECT cuckoo_filter(array(k)) FROM fact");
    assertTrue(m.contains("cuckoo_filter") && m.contains("unsupported type"), m);
    m = analysisError("SELECT cuckoo_might_contain((SELECT cuckoo_filter(k) FROM dim), array(k)) FROM fact");
    assertTrue(m.contains("argument 2 (key)"), m);
    m = analysisError("SELECT cuckoo_filter_info(42)");
    assertTrue(m.contains("cuckoo_filter_info") && m.contains("argument 1 (filter)"), m);
    m = analysisError("SELECT cuckoo_filter()");
    assertTrue(m.contains("cuckoo_filter"), m);
  }

  @Test
  void corruptBytesAtRuntimeNameTheFunction() {
    spark.sql("CREATE OR REPLACE TEMP VIEW blobs AS SELECT X'434B4F4F' AS b");
    Exception e = assertThrows(Exception.class, () -> spark.sql("SELECT cuckoo_filter_info(b) FROM blobs").collect());
    Throwable t = e;
    while (t.getCause() != null && !(t instanceof IllegalArgumentException)) {
      t = t.getCause();
    }
    assertTrue(t.getMessage().contains("cuckoo_filter_info: argument 1 (filter) is not a valid cuckoo filter"),
        t.getMessage());
  }
}
