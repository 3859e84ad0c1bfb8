package dev.cuckoofilter.examples.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cuckoofilter.examples.ChildProcess;
import dev.cuckoofilter.examples.TestSpark;
import dev.cuckoofilter.examples.common.ExitCodes;
import dev.cuckoofilter.spark.CuckooFilters;
import dev.cuckoofilter.spark.store.FilterStore;
import java.nio.file.Path;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code cuckoo contains} on filters Spark built and stored: a key Spark added is reported present when typed as
 * docs/JOBS.md describes it.
 */
class ContainsSparkKeysTest {
  @TempDir
  static Path dir;

  private static SparkSession spark;

  @BeforeAll
  static void startSpark() {
    spark = TestSpark.session();
  }

  @AfterAll
  static void stopSpark() {
    spark.stop();
  }

  private static String location(String name) {
    return dir.resolve("filters").resolve(name).toUri().toString();
  }

  /**
   * A CHAR(3) field of a struct key is stored and hashed padded ('cd' as 'cd '), as a top-level CHAR(3) key is: its
   * text is padded alike. Before, the field was hashed as typed, and {@code 1,cd} of a row Spark holds was absent.
   */
  @Test
  void aCharFieldOfAStructKeyIsPaddedAsATopLevelCharKeyIs() throws Exception {
    try {
      spark.sql("CREATE TABLE struct_chars (k STRUCT<n: INT, c: CHAR(3)>, a INT) USING parquet LOCATION '"
          + dir.resolve("struct_chars").toUri() + "'");
      spark.sql("INSERT INTO struct_chars VALUES (named_struct('n', 1, 'c', 'cd'), 1)");
      assertEquals("cd ", spark.table("struct_chars").select("k.c").as(org.apache.spark.sql.Encoders.STRING()).first(),
          "the premise: Spark stores the field padded");
      CuckooFilters.build(spark.table("struct_chars"), "k").saveTo(FilterStore.open(location("struct-chars"), spark),
          "struct_chars");
      ChildProcess.Result r = CuckooTool.inProcess("contains", location("struct-chars"), "1,cd", "1,cd ", "2,cd");
      assertEquals(ExitCodes.OK, r.exitCode(), r.describe());
      assertEquals("1,cd\tmaybe present\n1,cd \tmaybe present\n2,cd\tabsent\n", r.stdout());
    } finally {
      spark.sql("DROP TABLE IF EXISTS struct_chars");
    }
  }

  /** Nested structs, decimal fields and a field name of capitals: the char fields are found at any depth. */
  @Test
  void charFieldsOfNestedStructsArePadded() throws Exception {
    try {
      spark.sql("CREATE TABLE nested_chars (k STRUCT<d: DECIMAL(5,2), X_y: STRUCT<c: CHAR(4), v: VARCHAR(5)>, "
          + "e: CHAR(2)>, a INT) USING parquet LOCATION '" + dir.resolve("nested_chars").toUri() + "'");
      spark.sql("INSERT INTO nested_chars VALUES (named_struct('d', 1.5, 'X_y', named_struct('c', 'ab', 'v', 'v'), "
          + "'e', 'q'), 1)");
      CuckooFilters.build(spark.table("nested_chars"), "k").saveTo(FilterStore.open(location("nested-chars"), spark),
          "nested_chars");
      ChildProcess.Result r = CuckooTool.inProcess("contains", location("nested-chars"), "--separator", "|",
          "1.5|ab|v|q", "1.50|ab  |v|q ", "1.5|ab|v |q");
      assertEquals(ExitCodes.OK, r.exitCode(), r.describe());
      assertEquals("1.5|ab|v|q\tmaybe present\n1.50|ab  |v|q \tmaybe present\n1.5|ab|v |q\tabsent\n", r.stdout());
    } finally {
      spark.sql("DROP TABLE IF EXISTS nested_chars");
    }
  }
}
