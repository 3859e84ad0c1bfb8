package dev.cuckoofilter.examples.jobs;

import static dev.cuckoofilter.examples.ChildProcess.inProcess;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cuckoofilter.examples.ChildProcess.Result;
import dev.cuckoofilter.examples.TestSpark;
import dev.cuckoofilter.examples.common.ExitCodes;
import dev.cuckoofilter.spark.store.FilterStore;
import java.nio.file.Path;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Stored key columns are column names: the jobs update and prune with a location keyed by a column named cust.id. */
class DottedKeyColumnJobsTest {
  @TempDir
  static Path dir;
  private static SparkSession spark;

  @BeforeAll
  static void start() {
    spark = TestSpark.session();
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  @Test
  void aLocationKeyedByADottedColumnNameIsUpdatedAndPrunedWith() throws Exception {
    String before = dir.resolve("before").toString();
    String added = dir.resolve("added").toString();
    spark.sql("SELECT id AS `cust.id` FROM range(0, 100)").write().parquet(before);
    spark.sql("SELECT id AS `cust.id` FROM range(100, 150)").write().parquet(added);
    String after = dir.resolve("after").toString();
    spark.sql("SELECT id AS `cust.id` FROM range(0, 150)").write().parquet(after);
    String location = dir.resolve("filters").resolve("dotted").toString();
    Result built = inProcess(new BuildFilterJob(), "--input", before, "--keys", "`cust.id`", "--location", location);

    assertEquals(ExitCodes.OK, built.exitCode(), built.describe());
    assertEquals("cust.id", FilterStore.open(location, spark).readLatest().metadata().keyColumns().get(0).name());
    Result updated = inProcess(new UpdateFilterJob(), "--location", location, "--current", after, "--added", added);

    assertEquals(ExitCodes.OK, updated.exitCode(), updated.describe());
    assertEquals(2, FilterStore.open(location, spark).readLatest().version().version());

    // prune-join with the stored key columns (no --keys)
    String orders = dir.resolve("orders").toString();
    spark.sql("SELECT id AS `cust.id`, id * 10 AS amount FROM range(0, 1000)").write().parquet(orders);
    String joined = dir.resolve("joined").toString();
    Result pruned = inProcess(new PruneJoinJob(), "--location", location, "--input", orders, "--join-with", added,
        "--output", joined);

    assertEquals(ExitCodes.OK, pruned.exitCode(), pruned.describe());
    assertEquals(50, spark.read().parquet(joined).count());
    assertEquals(java.util.List.of("cust.id", "amount"), java.util.List.of(spark.read().parquet(joined).columns()));
  }
}
