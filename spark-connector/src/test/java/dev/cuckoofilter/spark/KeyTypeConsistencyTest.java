package dev.cuckoofilter.spark;

import static org.apache.spark.sql.functions.col;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoofilter.core.CuckooFilter;
import dev.cuckoofilter.core.hash.CuckooHash;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every supported key type answers alike in SQL ({@code cuckoo_filter} / {@code cuckoo_might_contain},
 * compiled and interpreted), in the DataFrame API ({@code CuckooFilters.builder}, {@code mightContain}) and
 * in plain Java as docs/HASHING.md section 5 specifies; null keys are left out and never match.
 */
class KeyTypeConsistencyTest {
  static SparkSession spark;
  /** Members: every third id of [-60, 60); probes: every id, and a null. */
  static final int FROM = -60;
  static final int TO = 60;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.local();
    spark.sql("CREATE OR REPLACE TEMP VIEW ktc_members AS SELECT id FROM range(" + FROM + ", " + TO + ") WHERE id % 3 = 0"
        + " UNION ALL SELECT NULL AS id");
    spark.sql("CREATE OR REPLACE TEMP VIEW ktc_probes AS SELECT id FROM range(" + FROM + ", " + TO + ")"
        + " UNION ALL SELECT NULL AS id");
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  /** The key of each type as a SQL expression of the integer id, null for a null id. */
  static String sqlKey(String type) {
    switch (type) {
      case "long": return "id * 1000000007";
      case "int": return "CAST(id * 1000 AS INT)";
      case "short": return "CAST(id * 100 AS SMALLINT)";
      case "byte": return "CAST(id AS TINYINT)";
      case "boolean": return "id % 2 = 0";
      case "float": return "CAST(id AS FLOAT) / 4";
      case "double": return "CAST(id AS DOUBLE) / 3";
      case "decimal_5_2": return "CAST(id / 4 AS DECIMAL(5, 2))";
      case "decimal_18_0": return "CAST(id * 100000000000000 AS DECIMAL(18, 0))";
      case "decimal_25_3": return "CAST(CAST(id AS DECIMAL(25, 3)) / 8 AS DECIMAL(25, 3))";
      case "decimal_38_0": return "CAST(CAST(id AS DECIMAL(38, 0)) * CAST('100000000000000000000' AS DECIMAL(38, 0)) AS DECIMAL(38, 0))";
      case "string": return "concat('k', id, '\u00e9\u4e2d')";
      case "binary": return "encode(concat('k', id), 'utf-8')";
      case "date": return "date_add(DATE'2000-01-01', CAST(id AS INT))";
      case "timestamp": return "timestamp_micros(id * 1000003)";
      case "timestamp_ntz": return "CAST(timestamp_micros(id * 1000003) AS TIMESTAMP_NTZ)";
      case "struct": return "struct(id, concat('k', id))";
      default: throw new IllegalArgumentException(type);
    }
  }

  /** The plain-Java answer of docs/HASHING.md section 5 for the key of {@code id}. */
  static boolean javaAnswer(String type, CuckooFilter f, long id) {
    long seed = f.seed();
    switch (type) {
      case "long": return f.mightContain(id * 1000000007L);
      case "int": return f.mightContain((int) (id * 1000));
      case "short": return f.mightContain((short) (id * 100));
      case "byte": return f.mightContain((byte) id);
      case "boolean": return f.mightContain(id % 2 == 0 ? 1 : 0);
      case "float": return f.mightContainHash(CuckooHash.hashLong(Double.doubleToLongBits((double) (id / 4.0f)), seed));
      case "double": return f.mightContainHash(CuckooHash.hashLong(Double.doubleToLongBits(id / 3.0), seed));
      case "decimal_5_2": return f.mightContain(decimal(BigDecimal.valueOf(id).divide(BigDecimal.valueOf(4)), 2));
      case "decimal_18_0": return f.mightContain(decimal(BigDecimal.valueOf(id * 100000000000000L), 0));
      case "decimal_25_3":
        return f.mightContain(decimal(BigDecimal.valueOf(id).divide(BigDecimal.valueOf(8), 3, RoundingMode.HALF_UP), 3));
      case "decimal_38_0": {
        BigInteger unscaled = BigInteger.valueOf(id).multiply(new BigInteger("100000000000000000000"));
        return unscaled.bitLength() < 64 ? f.mightContain(unscaled.longValueExact())
            : f.mightContainHash(CuckooHash.hashBytes(unscaled.toByteArray(), seed));
      }
      case "string": return f.mightContain("k" + id + "\u00e9\u4e2d");
      case "binary": return f.mightContain(("k" + id).getBytes(StandardCharsets.UTF_8));
      case "date": return f.mightContain(LocalDate.of(2000, 1, 1).plusDays(id).toEpochDay());
      case "timestamp":
      case "timestamp_ntz": return f.mightContain(id * 1000003);
      case "struct": return f.mightContainHash(CuckooHash.hashString("k" + id, CuckooHash.hashLong(id, seed)));
      default: throw new IllegalArgumentException(type);
    }
  }

  static long decimal(BigDecimal value, int scale) {
    return value.setScale(scale, RoundingMode.UNNECESSARY).unscaledValue().longValueExact();
  }

  /** id -> answer, in id order; the null probe last (key -1 stands for it). */
  static List<Boolean> answers(Dataset<Row> rows) {
    List<Row> sorted = rows.orderBy(col("id").asc_nulls_last()).collectAsList();
    List<Boolean> out = new ArrayList<>();
    for (Row r : sorted) {
      out.add(r.getBoolean(1));
    }
    return out;
  }

  @ParameterizedTest
  @ValueSource(strings = {"long", "int", "short", "byte", "boolean", "float", "double", "decimal_5_2", "decimal_18_0",
      "decimal_25_3", "decimal_38_0", "string", "binary", "date", "timestamp", "timestamp_ntz", "struct"})
  void sqlDataFrameAndPlainJavaAgree(String type) throws Exception {
    String key = sqlKey(type);
    byte[] sqlBytes = (byte[]) spark.sql("SELECT cuckoo_filter(" + key + ", 100, 0.01) FROM ktc_members").first().get(0);
    Dataset<Row> members = spark.sql("SELECT " + key + " AS key FROM ktc_members");
    SparkCuckooFilter built = CuckooFilters.builder(members).keys("key").expectedItems(100).fpp(0.01).build();
    assertArrayEquals(sqlBytes, built.filter().toByteArray(), "SQL and DataFrame builds of " + type);
    // Null keys are left out: the same bytes without the null row.
    assertArrayEquals(sqlBytes, (byte[]) spark.sql("SELECT cuckoo_filter(" + key + ", 100, 0.01) FROM ktc_members "
        + "WHERE id IS NOT NULL").first().get(0), type);

    CuckooFilter plain = CuckooFilter.fromByteArray(sqlBytes);
    List<Boolean> expected = new ArrayList<>();
    for (long id = FROM; id < TO; id++) {
      boolean answer = javaAnswer(type, plain, id);
      if (id % 3 == 0) {
        assertTrue(answer, type + " member " + id + " must be found in plain Java");
      }
      expected.add(answer);
    }
    expected.add(false); // the null key

    String probe = "SELECT id, cuckoo_might_contain((SELECT cuckoo_filter(" + key + ", 100, 0.01) FROM ktc_members), "
        + key + ") FROM ktc_probes";
    assertEquals(expected, answers(spark.sql(probe)), "SQL, compiled: " + type);
    Dataset<Row> probes = spark.sql("SELECT id, " + key + " AS key FROM ktc_probes");
    assertEquals(expected, answers(probes.select(col("id"), built.mightContain(col("key")))), "DataFrame: " + type);
    String[] interpreted = {"spark.sql.codegen.wholeStage", "spark.sql.codegen.factoryMode"};
    try {
      spark.conf().set(interpreted[0], "false");
      spark.conf().set(interpreted[1], "NO_CODEGEN");
      assertEquals(expected, answers(spark.sql(probe)), "SQL, interpreted: " + type);
      assertEquals(expected, answers(probes.select(col("id"), built.mightContain(col("key")))),
          "DataFrame, interpreted: " + type);
    } finally {
      for (String c : interpreted) {
        spark.conf().unset(c);
      }
    }
  }

  @org.junit.jupiter.api.Test
  void zerosNaNsAndCompositeKeysAsColumns() {
    // -0.0 is 0.0 and every NaN is NaN, for float and double alike, as Spark's join keys are normalized.
    List<Row> rows = spark.sql("SELECT cuckoo_might_contain((SELECT cuckoo_filter(d) FROM VALUES (0.0D), "
        + "(CAST('NaN' AS DOUBLE)) AS t(d)), d) FROM VALUES (-0.0D), (CAST('NaN' AS DOUBLE)), (CAST('NaN' AS FLOAT)), "
        + "(CAST(-0.0 AS FLOAT)) AS p(d)").collectAsList();
    for (Row r : rows) {
      assertTrue(r.getBoolean(0), rows.toString());
    }
    // A struct key and its fields as several columns (DataFrame) or arguments (SQL) are the same key.
    Dataset<Row> members = spark.sql("SELECT id, concat('k', id) AS s FROM ktc_members");
    byte[] struct = (byte[]) spark.sql("SELECT cuckoo_filter(struct(id, concat('k', id)), 100, 0.01) FROM ktc_members")
        .first().get(0);
    SparkCuckooFilter columns = CuckooFilters.builder(members).keys("id", "s").expectedItems(100).fpp(0.01).build();
    assertArrayEquals(struct, columns.filter().toByteArray());
    Dataset<Row> probes = spark.sql("SELECT id, concat('k', id) AS s FROM ktc_probes");
    assertEquals(answers(spark.sql("SELECT id, cuckoo_might_contain((SELECT cuckoo_filter(struct(id, concat('k', id)), "
            + "100, 0.01) FROM ktc_members), id, concat('k', id)) FROM ktc_probes")),
        answers(probes.select(col("id"), columns.mightContain(col("id"), col("s")))));
  }
}
