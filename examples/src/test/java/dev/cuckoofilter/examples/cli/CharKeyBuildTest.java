package dev.cuckoofilter.examples.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cuckoofilter.examples.ChildProcess;
import dev.cuckoofilter.examples.TestSpark;
import dev.cuckoofilter.examples.common.ExitCodes;
import dev.cuckoofilter.spark.store.FilterStore;
import java.nio.file.Path;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A filter the tool builds from the files of a Spark CHAR(n) table records the char type (Spark's schema in the
 * files' footer), so that a probe of a CHAR column of another length pads as Spark's join does.
 */
class CharKeyBuildTest {
  @TempDir
  Path dir;

  @Test
  void aFilterBuiltFromACharTablesFilesPrunesTheTable() throws Exception {
    SparkSession spark = TestSpark.session();
    try {
      spark.sql("CREATE TABLE char_keys (k CHAR(3), a INT) USING parquet LOCATION '" + dir.resolve("t").toUri() + "'");
      spark.sql("INSERT INTO char_keys VALUES ('ab', 1), ('xyz', 2), ('q', 3)");
      String location = dir.resolve("filter").toString();
      ChildProcess.Result built = CuckooTool.inProcess("build", location, "--input", dir.resolve("t").toString(),
          "--keys", "k");
      assertEquals(ExitCodes.OK, built.exitCode(), built.describe());
      FilterStore store = FilterStore.open(dir.resolve("filter").toUri().toString(), spark);
      assertEquals(3, store.sparkFilterLatest(spark).prune(spark.table("char_keys"), "k").count(),
          "every row of the table is kept");
      // A CHAR(5) table joins the CHAR(3) one on padded values: the filter must know its keys are CHAR(3) to prune it.
      spark.sql("CREATE TABLE char5_keys (k CHAR(5), b INT) USING parquet LOCATION '" + dir.resolve("t5").toUri() + "'");
      spark.sql("INSERT INTO char5_keys VALUES ('ab', 10), ('xyz', 20), ('zz', 30)");
      assertEquals(2, spark.table("char5_keys").join(spark.table("char_keys"), "k").count());
      assertEquals(2, store.sparkFilterLatest(spark).prune(spark.table("char5_keys"), "k")
          .join(spark.table("char_keys"), "k").count(), "a CHAR(5) table pruned by the CHAR(3) keys' filter");
    } finally {
      spark.sql("DROP TABLE IF EXISTS char_keys");
      spark.sql("DROP TABLE IF EXISTS char5_keys");
      spark.stop();
    }
  }
}
