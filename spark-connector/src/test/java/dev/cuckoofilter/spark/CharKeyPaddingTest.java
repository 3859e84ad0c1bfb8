package dev.cuckoofilter.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/**
 * Spark joins CHAR columns of different lengths after padding the shorter one (ApplyCharTypePadding):
 * {@code CHAR(3) 'ab '} equals {@code CHAR(5) 'ab   '}. A filter that hashes the values as stored misses
 * those matches, so {@code CuckooFilters.join} and {@code prune} must pad as the join does.
 */
class CharKeyPaddingTest {
  private static void run(SparkSession spark) {
    spark.sql("CREATE TABLE c3 (k CHAR(3), a INT) USING parquet");
    spark.sql("CREATE TABLE c5 (k CHAR(5), b INT) USING parquet");
    spark.sql("INSERT INTO c3 VALUES ('ab', 1), ('xyz', 2), ('q', 3)");
    spark.sql("INSERT INTO c5 VALUES ('ab', 10), ('xyz', 20), ('zz', 30)");
    Dataset<Row> c3 = spark.table("c3");
    Dataset<Row> c5 = spark.table("c5");
    assertEquals(2, c5.join(c3, "k").count(), "Spark's own join matches the padded values");
    assertEquals(2, CuckooFilters.join(c5, c3, List.of("k"), "inner").count(), "pruning the longer side");
    assertEquals(2, CuckooFilters.join(c3, c5, List.of("k"), "inner").count(), "pruning the shorter side");
    assertEquals(2, CuckooFilters.prune(c5, c3, "k").join(c3, "k").count());
    assertEquals(2, CuckooFilters.prune(c3, c5, "k").join(c5, "k").count());
    // A filter kept around (the builder) prunes a CHAR side of another length alike: it dropped both matches.
    SparkCuckooFilter f3 = CuckooFilters.build(c3, "k");
    SparkCuckooFilter f5 = CuckooFilters.build(c5, "k");
    assertEquals(2, f3.prune(c5, "k").join(c3, "k").count(), "a CHAR(3) filter pruning CHAR(5) keys");
    assertEquals(2, f5.prune(c3, "k").join(c5, "k").count(), "a CHAR(5) filter pruning CHAR(3) keys");
    assertEquals(2, f5.prune(c3.select(c3.col("k").as("key")), "key").join(c5, c5.col("k").equalTo(
        org.apache.spark.sql.functions.col("key"))).count(), "renamed");
  }

  /**
   * Spark pads the CHAR fields of struct keys alike ({@code ApplyCharTypePadding} compares
   * {@code struct<c: char(3)>} with {@code struct<c: char(5)>} after padding the shorter field), so a filter of
   * struct keys must hash such fields padded too: hashed as stored, pruning dropped the rows of both matches.
   */
  private static void runStructKeys(SparkSession spark) {
    spark.sql("CREATE TABLE s3 (k STRUCT<n: INT, c: CHAR(3)>, a INT) USING parquet");
    spark.sql("CREATE TABLE s5 (k STRUCT<n: INT, c: CHAR(5)>, b INT) USING parquet");
    spark.sql("INSERT INTO s3 VALUES (named_struct('n', 1, 'c', 'ab'), 1), (named_struct('n', 2, 'c', 'xyz'), 2), "
        + "(named_struct('n', 3, 'c', 'q'), 3)");
    spark.sql("INSERT INTO s5 VALUES (named_struct('n', 1, 'c', 'ab'), 10), (named_struct('n', 2, 'c', 'xyz'), 20), "
        + "(named_struct('n', 4, 'c', 'zz'), 30)");
    Dataset<Row> s3 = spark.table("s3");
    Dataset<Row> s5 = spark.table("s5");
    assertEquals(2, s5.join(s3, "k").count(), "Spark's own join matches the structs with their CHAR fields padded");
    assertEquals(2, CuckooFilters.join(s5, s3, List.of("k"), "inner").count(), "pruning the longer side");
    assertEquals(2, CuckooFilters.join(s3, s5, List.of("k"), "inner").count(), "pruning the shorter side");
    assertEquals(2, CuckooFilters.prune(s5, s3, "k").join(s3, "k").count(), "prune: the longer side");
    assertEquals(2, CuckooFilters.prune(s3, s5, "k").join(s5, "k").count(), "prune: the shorter side");
    SparkCuckooFilter f3 = CuckooFilters.build(s3, "k");
    SparkCuckooFilter f5 = CuckooFilters.build(s5, "k");
    assertEquals(2, f3.prune(s5, "k").join(s3, "k").count(), "a filter of struct<n, char(3)> pruning char(5) fields");
    assertEquals(2, f5.prune(s3, "k").join(s5, "k").count(), "a filter of struct<n, char(5)> pruning char(3) fields");
  }

  private static SparkSession.Builder session(boolean extensions) {
    SparkSession.Builder b = SparkSession.builder().master("local[2]").appName("char-keys")
        .config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "4")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.warehouse.dir", "target/char-keys-warehouse-" + System.nanoTime());
    if (extensions) {
      b.config("spark.sql.extensions", CuckooFilterExtensions.class.getName());
    }
    return b;
  }

  @Test
  void charKeysOfDifferentLengthsKeepTheirMatchesWithoutTheExtensions() {
    SparkSession spark = session(false).getOrCreate();
    try {
      run(spark);
    } finally {
      spark.stop();
    }
  }

  @Test
  void charKeysOfDifferentLengthsKeepTheirMatchesWithTheExtensions() {
    SparkSession spark = session(true).getOrCreate();
    try {
      run(spark);
    } finally {
      spark.stop();
    }
  }

  @Test
  void charFieldsOfStructKeysOfDifferentLengthsKeepTheirMatchesWithoutTheExtensions() {
    SparkSession spark = session(false).getOrCreate();
    try {
      runStructKeys(spark);
    } finally {
      spark.stop();
    }
  }

  @Test
  void charFieldsOfStructKeysOfDifferentLengthsKeepTheirMatchesWithTheExtensions() {
    SparkSession spark = session(true).getOrCreate();
    try {
      runStructKeys(spark);
    } finally {
      spark.stop();
    }
  }
}
