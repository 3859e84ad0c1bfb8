package dev.cuckoofilter.examples.jobs;

import static dev.cuckoofilter.examples.ChildProcess.inProcess;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cuckoofilter.examples.ChildProcess.Result;
import dev.cuckoofilter.examples.common.ExitCodes;
import dev.cuckoofilter.spark.store.FilterStore;
import org.junit.jupiter.api.Test;

/** Stored key columns are column names: the jobs update and prune with a location keyed by a column named cust.id. */
class DottedKeyColumnJobsTest extends SparkJobTest {
  /**
   * --keys and --join-keys are column expressions, so a column named cust.id is given quoted. prune-join joined
   * equal keys of both sides with USING, which takes names: USING `cust.id` (with the backticks) named no column,
   * and the job failed after pruning with "USING column `cust.id` cannot be resolved", exit code 1.
   */
  @Test
  void quotedKeysOfBothSidesJoinByTheirColumnNames() throws Exception {
    String customers = dir.resolve("quoted-customers").toString();
    spark.sql("SELECT id AS `cust.id`, concat('c-', id) AS name FROM range(0, 100)").write().parquet(customers);
    String orders = dir.resolve("quoted-orders").toString();
    spark.sql("SELECT id % 200 AS `cust.id`, id AS order_id FROM range(0, 1000)").write().parquet(orders);
    String location = dir.resolve("filters").resolve("quoted").toString();
    Result built = inProcess(new BuildFilterJob(), "--input", customers, "--keys", "`cust.id`", "--location", location);
    assertEquals(ExitCodes.OK, built.exitCode(), built.describe());

    String[][] keyOptions = {{"--keys", "`cust.id`"}, {"--keys", "`cust.id`", "--join-keys", "`cust.id`"}};
    for (int i = 0; i < keyOptions.length; i++) {
      String joined = dir.resolve("quoted-joined-" + i).toString();
      java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of("--location", location, "--input",
          orders, "--join-with", customers, "--output", joined));
      args.addAll(java.util.List.of(keyOptions[i]));
      Result pruned = inProcess(new PruneJoinJob(), args.toArray(new String[0]));

      assertEquals(ExitCodes.OK, pruned.exitCode(), pruned.describe());
      assertEquals(500, spark.read().parquet(joined).count());
      assertEquals(java.util.List.of("cust.id", "order_id", "name"), java.util.List.of(spark.read().parquet(joined)
          .columns()), "one copy of the key column");
    }
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
