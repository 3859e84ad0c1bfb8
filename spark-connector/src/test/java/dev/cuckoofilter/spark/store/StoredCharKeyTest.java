package dev.cuckoofilter.spark.store;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cuckoofilter.spark.CuckooFilters;
import dev.cuckoofilter.spark.SparkCuckooFilter;
import dev.cuckoofilter.spark.SparkTestSession;
import dev.cuckoofilter.spark.optimizer.RuntimeFilterConf;
import dev.cuckoofilter.spark.optimizer.StoredFilterIndex;
import dev.cuckoofilter.spark.update.ChangeSet;
import dev.cuckoofilter.spark.update.FilterUpdater;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Stored filters of CHAR keys prune CHAR keys of another length as Spark's join compares them (padded). */
class StoredCharKeyTest {
  static SparkSession spark;
  @TempDir
  static Path dir;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.builder("local[2]")
        .config("spark.sql.autoBroadcastJoinThreshold", "-1")
        .config(RuntimeFilterConf.APPLICATION_SIDE_THRESHOLD, "1B")
        .config("spark.sql.warehouse.dir", dir.resolve("warehouse").toString())
        .getOrCreate();
    spark.sql("CREATE TABLE c3 (k CHAR(3), a INT) USING parquet");
    spark.sql("CREATE TABLE c5 (k CHAR(5), b INT) USING parquet");
    spark.sql("INSERT INTO c3 VALUES ('ab', 1), ('xyz', 2), ('q', 3)");
    spark.sql("INSERT INTO c5 VALUES ('ab', 10), ('xyz', 20), ('zz', 30)");
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  static String location(String name) {
    return dir.resolve("filters/" + name).toUri().toString();
  }

  @Test
  void aStoredFilterPrunesCharKeysOfAnotherLength() throws Exception {
    Dataset<Row> c3 = spark.table("c3");
    Dataset<Row> c5 = spark.table("c5");
    FilterStore s3 = FilterStore.open(location("saved3"), spark);
    FilterStore s5 = FilterStore.open(location("saved5"), spark);
    CuckooFilters.build(c3, "k").saveTo(s3, "c3");
    CuckooFilters.build(c5, "k").saveTo(s5, "c5");
    for (boolean broadcast : new boolean[] {true, false}) {
      SparkCuckooFilter f3 = s3.sparkFilterLatest(spark, broadcast);
      SparkCuckooFilter f5 = s5.sparkFilterLatest(spark, broadcast);
      assertEquals(2, f3.prune(c5, "k").join(c3, "k").count(), "stored CHAR(3) filter pruning CHAR(5)");
      assertEquals(2, f5.prune(c3, "k").join(c5, "k").count(), "stored CHAR(5) filter pruning CHAR(3)");
    }
  }

  static List<Row> rows(String sql, boolean rule) {
    spark.conf().set(RuntimeFilterConf.ENABLED, String.valueOf(rule));
    try {
      return spark.sql(sql).orderBy("a").collectAsList();
    } finally {
      spark.conf().unset(RuntimeFilterConf.ENABLED);
    }
  }

  /**
   * Spark joins CHAR keys of different lengths on rpad(k, n), not on the indexed column, so the rule never
   * probes a stored index there; results with the rule equal those without. (With read-side padding, the
   * default, a CHAR column is read through a padding projection and cannot be indexed at all.)
   */
  @Test
  void aStoredIndexJoinsCharKeysOfAnotherLength() throws Exception {
    spark.conf().set("spark.sql.readSideCharPadding", "false"); // values padded on write, read as they are
    spark.conf().set(RuntimeFilterConf.FORCE, "true");
    try {
      spark.sql("CREATE TABLE d3 (k CHAR(3), a INT) USING parquet");
      spark.sql("CREATE TABLE d5 (k CHAR(5), b INT) USING parquet");
      spark.sql("INSERT INTO d3 VALUES ('ab', 1), ('xyz', 2), ('q', 3)");
      spark.sql("INSERT INTO d5 VALUES ('ab', 10), ('xyz', 20), ('zz', 30)");
      StoredFilterIndex.storeIndex(spark, "d3", List.of("k"), location("index3"), 0.01);
      StoredFilterIndex.storeIndex(spark, "d5", List.of("k"), location("index5"), 0.01);
      for (String sql : List.of("SELECT d3.a, d5.b FROM d3 JOIN d5 ON d3.k = d5.k",
          "SELECT d3.a, d5.b FROM d5 JOIN d3 ON d5.k = d3.k")) {
        assertEquals(2, rows(sql, false).size());
        assertEquals(rows(sql, false), rows(sql, true), sql);
      }
    } finally {
      spark.conf().unset("spark.sql.readSideCharPadding");
      spark.conf().unset(RuntimeFilterConf.FORCE);
    }
  }

  @Test
  void anUpdateWithCharKeysOfAnotherLengthHashesThemLikeTheBuild() throws Exception {
    spark.sql("CREATE TABLE u3 (k CHAR(3), a INT) USING parquet");
    spark.sql("CREATE TABLE s5 (k CHAR(5), a INT) USING parquet");
    spark.sql("INSERT INTO u3 VALUES ('ab', 1)");
    spark.sql("INSERT INTO s5 VALUES ('cd', 2)");
    FilterStore store = FilterStore.open(location("update3"), spark);
    CuckooFilters.build(spark.table("u3"), "k").saveTo(store, "u3");
    // Rows staged in a CHAR(5) table are added to the CHAR(3) table (Spark stores 'cd   ' as 'cd ').
    spark.sql("INSERT INTO u3 SELECT k, a FROM s5");
    Dataset<Row> added = spark.table("s5");
    FilterUpdater.update(store, ChangeSet.of(added, added.where("false"), spark.table("u3")), "staged rows");
    Dataset<Row> u3 = spark.table("u3");
    assertEquals(2, store.sparkFilterLatest(spark).prune(u3, "k").count(), "every row of the table is kept");
    assertEquals(1, store.sparkFilterLatest(spark).prune(added, "k").join(u3, "k").count(),
        "the staged row joining the table");
  }

  /**
   * Rows of plain strings (a DataFrame of the new rows, a CSV file) appended to a CHAR(3) table are stored padded
   * ('cd' as 'cd '), as rows of another CHAR length are: an update with those rows as its added rows must add the
   * padded key, which the table holds and its probes hash, and rows deleted by such a string must remove it.
   */
  @Test
  void anUpdateWithStringKeysOfACharFilterHashesThemAsTheTableStoresThem() throws Exception {
    spark.sql("CREATE TABLE w3 (k CHAR(3), a INT) USING parquet");
    spark.sql("INSERT INTO w3 VALUES ('ab', 1), ('ef', 3)");
    FilterStore store = FilterStore.open(location("strings3"), spark);
    CuckooFilters.build(spark.table("w3"), "k").saveTo(store, "w3");
    Dataset<Row> added = spark.sql("SELECT 'cd' AS k, 2 AS a");
    added.write().insertInto("w3"); // stored as 'cd '
    FilterUpdater.update(store, ChangeSet.of(added, added.where("false"), spark.table("w3")), "appended strings");
    Dataset<Row> w3 = spark.table("w3");
    assertEquals(3, store.sparkFilterLatest(spark).prune(w3, "k").count(), "every row of the table is kept");
    assertEquals(List.of("ab ", "cd ", "ef "), w3.orderBy("k").select("k").as(
        org.apache.spark.sql.Encoders.STRING()).collectAsList(), "the premise: the table holds padded values");

    Dataset<Row> deleted = spark.sql("SELECT 'ef' AS k, 3 AS a");
    Dataset<Row> after = spark.table("w3").where("a <> 3"); // the table once the row is deleted
    FilterUpdater.update(store, ChangeSet.of(after.where("false"), deleted, after), "deleted strings");
    assertEquals(java.util.Arrays.toString(CuckooFilters.build(after, "k").filter().toByteArray()),
        java.util.Arrays.toString(store.readLatest().filter().toByteArray()),
        "the bytes of a fresh build of the table without the deleted row");
  }

  /**
   * The CHAR fields of a stored struct key alike: rows whose struct has a string field (a DataFrame of the new rows)
   * appended to a table of {@code struct<n: int, c: char(3)>} are stored with the field padded ('cd' as 'cd '), and
   * an update with those rows as its added rows must add the key as the table holds it.
   */
  @Test
  void anUpdateWithStructKeysOfStringFieldsOfACharFieldFilterHashesThemAsTheTableStoresThem() throws Exception {
    spark.sql("CREATE TABLE x3 (k STRUCT<n: INT, c: CHAR(3)>, a INT) USING parquet");
    spark.sql("INSERT INTO x3 VALUES (named_struct('n', 1, 'c', 'ab'), 1)");
    FilterStore store = FilterStore.open(location("structs3"), spark);
    CuckooFilters.build(spark.table("x3"), "k").saveTo(store, "x3");
    Dataset<Row> added = spark.sql("SELECT named_struct('n', 2, 'c', 'cd') AS k, 2 AS a");
    added.write().insertInto("x3"); // stored as named_struct('n', 2, 'c', 'cd ')
    FilterUpdater.update(store, ChangeSet.of(added, added.where("false"), spark.table("x3")), "appended structs");
    Dataset<Row> x3 = spark.table("x3");
    assertEquals(List.of("ab ", "cd "), x3.orderBy("a").select("k.c").as(org.apache.spark.sql.Encoders.STRING())
        .collectAsList(), "the premise: the table holds padded fields");
    assertEquals(2, store.sparkFilterLatest(spark).prune(x3, "k").count(), "every row of the table is kept");
  }

  @Test
  void anUpdateOfACharKeyFromSnapshotsHashesLikeTheBuild() throws Exception {
    spark.sql("CREATE TABLE v3 (k CHAR(3), a INT) USING parquet");
    spark.sql("INSERT INTO v3 VALUES ('ab', 1)");
    Dataset<Row> before = spark.table("v3").localCheckpoint();
    FilterStore store = FilterStore.open(location("snapshots3"), spark);
    CuckooFilters.build(spark.table("v3"), "k").saveTo(store, "v3");
    spark.sql("INSERT INTO v3 VALUES ('xyz', 2)");
    FilterUpdater.update(store, ChangeSet.between(before, spark.table("v3")), "insert");
    assertEquals(2, store.sparkFilterLatest(spark).prune(spark.table("v3"), "k").count());
    assertEquals(2, store.sparkFilterLatest(spark).prune(spark.table("c5"), "k").join(spark.table("v3"), "k").count());
  }
}
