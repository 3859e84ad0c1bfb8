package dev.cuckoofilter.spark;

import static org.apache.spark.sql.functions.col;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The DataFrame API with keys of mismatched types, awkward names and bad parameters. */
class DataFrameApiTest {
  static SparkSession spark;
  /** Keys 0, 4, ..., 396. */
  static Dataset<Row> small;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.local();
    small = spark.sql("SELECT id * 4 AS k FROM range(0, 100)");
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  static scala.collection.Seq<String> seq(String... names) {
    return scala.collection.JavaConverters.asScalaBuffer(List.of(names)).toSeq();
  }

  static void assertMentions(String message, String... parts) {
    for (String part : parts) {
      assertTrue(message.contains(part), () -> "'" + part + "' missing from: " + message);
    }
  }

  /**
   * The big side's key as another type than the small side's bigint: Spark's join casts and matches 100
   * rows; the filter hashes each side's values as they are, so pruning kept 1 or 2 of them.
   */
  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {"string | CAST(id AS STRING) | CAST(k AS BIGINT)",
      "double | CAST(id AS DOUBLE) | CAST(k AS BIGINT)",
      "decimal scale 2 | CAST(id AS DECIMAL(10, 2)) | CAST(k AS DECIMAL(10, 0))",
      "timestamp | CAST(date_add(DATE'1970-01-01', CAST(id AS INT)) AS TIMESTAMP) | date_add(DATE'1970-01-01', CAST(k AS INT))"})
  void theOneCallPruneRefusesKeysThatHashOtherwise(String name, String bigKey, String smallKey) {
    Dataset<Row> big = spark.sql("SELECT " + bigKey + " AS k, id AS payload FROM range(0, 400)");
    Dataset<Row> dim = small.selectExpr(smallKey + " AS k");
    assertEquals(100, big.join(dim, seq("k"), "left_semi").count(), name);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CuckooFilters.prune(big, dim, "k"));
    assertMentions(e.getMessage(), "do not hash like", "cast");
    assertThrows(IllegalArgumentException.class, () -> CuckooFilters.join(big, dim, List.of("k"), "inner"));
    assertThrows(IllegalArgumentException.class,
        () -> CuckooFilters.join(dim, big, List.of("k"), "inner", dev.cuckoofilter.spark.prune.JoinPruning.Side.RIGHT));
    // Integer widths hash alike: an int side is pruned and joined exactly.
    Dataset<Row> ints = spark.sql("SELECT CAST(id AS INT) AS k, id AS payload FROM range(0, 400)");
    assertEquals(100, CuckooFilters.join(ints, small, List.of("k"), "inner").count());
  }

  @Test
  void theProbeColumnRefusesKeysThatHashOtherwise() {
    SparkCuckooFilter filter = CuckooFilters.builder(small).keys("k").fpp(0.001).build();
    Dataset<Row> strings = spark.sql("SELECT CAST(id AS STRING) AS s, id FROM range(0, 400)");
    // Used to keep 2 of the 100 matching rows: a string never hashes like the bigint it equals.
    AnalysisException e = assertThrows(AnalysisException.class, () -> strings.where(filter.mightContain(col("s"))));
    assertMentions(e.getMessage(), "cuckoo_might_contain", "do not hash like the filter's keys", "k bigint");
    // Two columns for a one-column key (used to keep 9 rows).
    assertThrows(AnalysisException.class, () -> strings.where(filter.mightContain(col("id"), col("id"))));
    assertEquals(100, strings.where(filter.mightContain(col("id"))).where("id % 4 = 0").count());
  }

  /**
   * The probe column of a filter of a struct key, given a struct with the filter's fields in another order (the
   * same data read back from JSON, whose schema inference sorts struct fields by name): a struct key hashes its
   * fields in order, and the check compared only their categories (string, string), so the probe passed and found
   * 4 of the 1000 rows, false positives, where the SQL function refuses such a key at analysis.
   */
  @Test
  void theProbeColumnRefusesAStructKeyWithTheFiltersFieldsInAnotherOrder() {
    Dataset<Row> customers = spark.sql("SELECT named_struct('zip', CAST(id AS STRING), 'city', concat('c', id)) AS addr, "
        + "named_struct('n', id, 'm', named_struct('y', CAST(id AS STRING), 'x', CAST(id AS STRING))) AS nested "
        + "FROM range(0, 1000)");
    Dataset<Row> reordered = customers.selectExpr("named_struct('city', addr.city, 'zip', addr.zip) AS addr",
        "named_struct('n', nested.n, 'm', named_struct('x', nested.m.x, 'y', nested.m.y)) AS nested");
    SparkCuckooFilter byAddress = CuckooFilters.builder(customers).keys("addr").expectedItems(1000).build();
    assertEquals(1000, customers.where(byAddress.mightContain(col("addr"))).count());
    AnalysisException e = assertThrows(AnalysisException.class,
        () -> reordered.where(byAddress.mightContain(col("addr"))),
        () -> "a struct key with the filter's fields in another order was probed: it kept "
            + reordered.where(byAddress.mightContain(col("addr"))).count() + " of the 1000 rows whose address the filter "
            + "holds");
    assertMentions(e.getMessage(), "cuckoo_might_contain", "another order",
        "struct<city:string,zip:string> vs struct<zip:string,city:string>");
    // At any depth.
    SparkCuckooFilter byNested = CuckooFilters.builder(customers).keys("nested").expectedItems(1000).build();
    AnalysisException nested = assertThrows(AnalysisException.class,
        () -> reordered.where(byNested.mightContain(col("nested"))));
    assertMentions(nested.getMessage(), "another order", "struct<x:string,y:string> vs struct<y:string,x:string>");
    // prune takes such a struct's fields by name.
    assertEquals(1000, byAddress.prune(reordered, "addr").count());
  }

  /**
   * The one-call prune of a side whose struct key has the fields of the other side's struct key in another order:
   * Spark's join refuses to compare the two, while the type check compared only the fields' categories (string,
   * string) and the filter of the other side's keys, probed with the fields in the order they came, kept 18 of the
   * 3000 rows whose address the other side holds (false positives).
   */
  @Test
  void theOneCallPruneRefusesAStructKeyWithTheOtherSidesFieldsInAnotherOrder() {
    Dataset<Row> customers = spark.sql("SELECT named_struct('zip', CAST(id AS STRING), 'city', concat('c', id)) AS addr "
        + "FROM range(0, 1000)");
    Dataset<Row> orders = spark.sql("SELECT named_struct('city', concat('c', id % 1000), 'zip', CAST(id % 1000 AS STRING)) "
        + "AS addr, id FROM range(0, 3000)");
    assertThrows(AnalysisException.class, () -> orders.join(customers, seq("addr")).count());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> CuckooFilters.prune(orders, customers, "addr"),
        () -> "pruned with a struct key in another order: kept " + CuckooFilters.prune(orders, customers, "addr").count()
            + " of the 3000 rows whose address the other side holds");
    assertMentions(e.getMessage(), "prune", "another order", "struct<city:string,zip:string> vs struct<zip:string,city:string>");
    assertThrows(IllegalArgumentException.class, () -> CuckooFilters.join(orders, customers, List.of("addr"), "inner"));
  }

  @Test
  void nestedStructKeysMatchTheirFieldsAtAnyDepth() {
    // The hash flattens structs at any depth; the type check used to flatten one level only and refuse these.
    Dataset<Row> nested = spark.sql("SELECT named_struct('a', named_struct('x', id, 'y', CAST(id AS STRING)), 'b', id * 2) "
        + "AS n FROM range(0, 50)");
    Dataset<Row> flat = spark.sql("SELECT id AS x, CAST(id AS STRING) AS y, id * 2 AS b FROM range(0, 200)");
    SparkCuckooFilter filter = CuckooFilters.builder(nested).keys("n").expectedItems(50).fpp(0.0001).build();
    long viaNested = filter.prune(nested, "n").count();
    assertEquals(50, viaNested);
    long viaFields = filter.prune(flat, "x", "y", "b").where("x < 50").count();
    assertEquals(50, viaFields);
    assertEquals(50, filter.prune(flat.selectExpr("struct(x, y) AS xy", "b", "x"), "xy", "b").where("x < 50").count());
  }

  @Test
  void structKeysWithNullFieldsKeepTheirMatches() {
    // Spark's struct equality matches null fields (struct(3, null) = struct(3, null)); the one-call prune
    // and join used the struct as a filter key, which leaves out keys with a null component.
    Dataset<Row> big = spark.sql("SELECT named_struct('a', id % 500, 'b', CASE WHEN id % 3 = 0 THEN NULL "
        + "ELSE id % 5 END) AS s, id AS v FROM range(0, 5000)");
    Dataset<Row> dim = spark.sql("SELECT named_struct('a', id * 7, 'b', CASE WHEN id % 2 = 0 THEN NULL "
        + "ELSE id % 5 END) AS s FROM range(0, 100)");
    // The same struct type with a field that cannot be null: the two sides' keys must still hash alike.
    Dataset<Row> strict = spark.sql("SELECT named_struct('a', id * 7, 'b', id % 5) AS s FROM range(0, 100)");
    for (Dataset<Row> other : List.of(dim, strict)) {
      List<Row> expected = big.join(other, seq("s"), "inner").sort("v").collectAsList();
      assertTrue(expected.size() > 0);
      assertEquals(expected, CuckooFilters.join(big, other, List.of("s"), "inner").sort("v").collectAsList());
      assertEquals(big.join(other, seq("s"), "left_semi").count(),
          CuckooFilters.prune(big, other, "s").join(other, seq("s"), "left_semi").count());
    }
    assertTrue(big.join(dim, seq("s"), "inner").where("s.b IS NULL").count() > 0, "the test joins null fields");
  }

  @Test
  void joinTakesColumnNamesAsSparksJoinDoes() {
    // Using columns are names, not parsed: "a.b" is the column named a.b. CuckooFilters.join parsed them
    // for its filter (a.b: field b of a), so a name with a dot could not be given in any form.
    Dataset<Row> big = spark.sql("SELECT id AS `a.b`, id AS `c d`, id AS `e``f`, id AS payload FROM range(0, 400)");
    Dataset<Row> dim = spark.sql("SELECT id * 4 AS `a.b`, id * 4 AS `c d`, id * 4 AS `e``f` FROM range(0, 100)");
    for (String name : new String[] {"a.b", "c d", "e`f"}) {
      assertEquals(100, big.join(dim, seq(name), "inner").count(), name);
      assertEquals(100, CuckooFilters.join(big, dim, List.of(name), "inner").count(), name);
      assertEquals(100, CuckooFilters.join(big, dim, List.of(name), "left_semi",
          dev.cuckoofilter.spark.prune.JoinPruning.Side.RIGHT).count(), name);
    }
    assertEquals(100, CuckooFilters.join(big, dim, List.of("a.b", "c d", "e`f"), "inner").count());
    // prune and the builder parse names like Dataset.col: quote such names there.
    assertEquals(100, CuckooFilters.prune(big, dim, "`a.b`").join(dim, seq("a.b"), "left_semi").count());
    // Case: as the session resolves names.
    Dataset<Row> upper = spark.sql("SELECT id AS K FROM range(0, 400)");
    assertEquals(100, CuckooFilters.join(upper, small, List.of("k"), "inner").count());
    // A missing side or key list is an argument error, not a silently unpruned join.
    assertThrows(IllegalArgumentException.class, () -> CuckooFilters.join(big, dim, List.of("a.b"), "inner", null));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> CuckooFilters.join(big, dim, List.of(), "inner"));
    assertMentions(e.getMessage(), "join", "key column");
  }

  @Test
  void ratesAndSizesNoFilterCanHaveFailWhenGiven() {
    // These failed inside the build's tasks (or, for filterOf's fpp, were not checked at all), with
    // filter-core's message wrapped in a SparkException.
    for (double fpp : new double[] {0, 2, Double.NaN, 1e-15}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> CuckooFilters.filterOf(100, fpp, col("k")), "fpp " + fpp);
      assertMentions(e.getMessage(), "fpp");
      assertThrows(IllegalArgumentException.class, () -> CuckooFilters.filterOf(0, fpp, col("k")));
      assertThrows(IllegalArgumentException.class, () -> CuckooFilters.builder(small).fpp(fpp));
      assertThrows(IllegalArgumentException.class, () -> CuckooFilters.prune(small, small, fpp, "k"));
    }
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> CuckooFilters.filterOf(-5, 0.01, col("k")));
    assertMentions(e.getMessage(), "expectedItems");
    e = assertThrows(IllegalArgumentException.class,
        () -> CuckooFilters.builder(small).keys("k").expectedItems(1_000_000_000_000_000L).build());
    assertMentions(e.getMessage(), "expectedItems 1000000000000000");
    // 0 sizes from the data.
    byte[] bytes = (byte[]) small.agg(CuckooFilters.filterOf(0, 0.01, col("k"))).first().get(0);
    assertTrue(bytes.length > 0);
  }

  /**
   * A filter of a struct key pruning a struct whose fields are the filter's in another order, such as the same
   * data read back from JSON (Spark's JSON schema inference sorts struct fields by name: struct<zip, city> reads
   * back as struct<city, zip>): its fields are taken by name, as FilterUpdater reads such a change. The struct
   * hashes its fields in order, so hashed as it came it was another key (4 of the 1000 rows were kept).
   */
  @Test
  void aStructKeyWhoseFieldsComeInAnotherOrderIsPrunedByFieldName(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) {
    Dataset<Row> customers = spark.sql("SELECT named_struct('zip', CAST(id AS STRING), 'city', concat('c', id)) AS addr, "
        + "named_struct('n', id, 'm', named_struct('y', CAST(id AS STRING), 'x', id * 2)) AS nested FROM range(0, 1000)");
    String json = dir.resolve("customers").toString();
    customers.write().json(json);
    Dataset<Row> fromJson = spark.read().json(json);
    assertEquals("struct<city:string,zip:string>", fromJson.schema().apply("addr").dataType().simpleString());
    SparkCuckooFilter byAddress = CuckooFilters.builder(customers).keys("addr").expectedItems(1000).build();
    assertEquals(1000, byAddress.prune(fromJson, "addr").count());
    // At any depth, and where the reordered fields' types differ (which the type check refused before).
    assertEquals("struct<m:struct<x:bigint,y:string>,n:bigint>", fromJson.schema().apply("nested").dataType().simpleString());
    SparkCuckooFilter byNested = CuckooFilters.builder(customers).keys("nested").expectedItems(1000).build();
    assertEquals(1000, byNested.prune(fromJson, "nested").count());
    // A null struct stays a null key: its row is dropped, not kept as a struct of nulls.
    Dataset<Row> withNull = fromJson.selectExpr("addr").union(spark.sql("SELECT CAST(NULL AS STRUCT<city: STRING, zip: STRING>)"));
    assertEquals(1000, byAddress.prune(withNull, "addr").count());
  }

  @Test
  void timestampsWithAndWithoutTimeZoneAreNotMixed() {
    // Spark compares timestamp_ntz with timestamp after reading the former in the session time zone; the
    // filter hashes each side's microseconds as they are. Outside UTC the one-call join lost matches
    // (98 of 100 here); now such keys are refused like other types that hash otherwise.
    try {
      spark.conf().set("spark.sql.session.timeZone", "America/Los_Angeles");
      Dataset<Row> big = spark.sql("SELECT CAST(timestamp_micros(id * 3600000000) AS TIMESTAMP_NTZ) AS t, id FROM range(0, 400)");
      Dataset<Row> dim = spark.sql("SELECT CAST(CAST(timestamp_micros(id * 14400000000) AS TIMESTAMP_NTZ) AS TIMESTAMP) AS t "
          + "FROM range(0, 100)");
      assertEquals(100, big.join(dim, seq("t"), "left_semi").count());
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> CuckooFilters.join(big, dim, List.of("t"), "left_semi"));
      assertMentions(e.getMessage(), "timestamp_ntz vs timestamp");
      AnalysisException sql = assertThrows(AnalysisException.class, () -> spark.sql("SELECT count(*) FROM range(0, 400) "
          + "WHERE cuckoo_might_contain((SELECT cuckoo_filter(CAST(timestamp_micros(id) AS TIMESTAMP)) FROM range(0, 100)), "
          + "CAST(timestamp_micros(id) AS TIMESTAMP_NTZ))"));
      assertMentions(sql.getMessage(), "argument 2 (key)");
      // Each kind with itself is fine.
      assertEquals(100, CuckooFilters.join(big, dim.selectExpr("CAST(t AS TIMESTAMP_NTZ) AS t"), List.of("t"), "left_semi")
          .count());
    } finally {
      spark.conf().set("spark.sql.session.timeZone", "UTC"); // as SparkTestSession sets it
    }
  }
}
