package dev.cuckoofilter.examples.jobs;

import static dev.cuckoofilter.examples.ChildProcess.inProcess;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.cuckoofilter.examples.ChildProcess.Result;
import dev.cuckoofilter.examples.common.ExitCodes;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * prune-join probes the filter with --keys in the order given, and a filter of a composite key hashes its columns in
 * its own order: keys of --join-with naming the filter's key columns in another order (of the same types) probed other
 * keys than the filter holds, and the join lost nearly all its rows with exit code 0, while the unpruned join (USING,
 * where the order does not matter) had them all. Such keys are refused now, naming the filter's order.
 */
class PruneJoinKeyOrderTest extends SparkJobTest {
  static String customers;
  static String orders;
  static String location;

  @BeforeAll
  static void writeData() {
    customers = dir.resolve("customers").toString();
    spark.sql("SELECT CAST(id % 7 AS INT) AS region, CAST(id AS INT) AS id, concat('c-', id) AS name "
        + "FROM range(0, 200)").write().parquet(customers);
    orders = dir.resolve("orders").toString();
    spark.sql("SELECT CAST(id % 400 % 7 AS INT) AS region, CAST(id % 400 AS INT) AS id, id AS order_id "
        + "FROM range(0, 2000)").write().parquet(orders);
    location = location("by-region-and-id");
    Result built = inProcess(new BuildFilterJob(), "--input", customers, "--keys", "region,id", "--location",
        location, "--fpp", "0.001");
    assertEquals(ExitCodes.OK, built.exitCode(), built.describe());
  }

  /** The unpruned join: customers 0-199 match orders of ids 0-199, 5 each. */
  private static Dataset<Row> unpruned() {
    return spark.read().parquet(orders).join(spark.read().parquet(customers),
        dev.cuckoofilter.spark.util.ScalaCollections.seq(java.util.List.of("region", "id")), "inner");
  }

  @Test
  void keysInTheFiltersOrderJoinAsTheUnprunedJoin() {
    String joined = dir.resolve("in-order").toString();

    Result r = inProcess(new PruneJoinJob(), "--location", location, "--input", orders, "--keys", "region,id",
        "--join-with", customers, "--output", joined);

    assertEquals(ExitCodes.OK, r.exitCode(), r.describe());
    Dataset<Row> result = spark.read().parquet(joined);
    assertEquals(1000, unpruned().count());
    assertEquals(0, unpruned().exceptAll(result.select("region", "id", "order_id", "name")).count());
    assertEquals(1000, result.count());
  }

  @Test
  void keysNamingTheFiltersColumnsInAnotherOrderAreRefused() {
    String joined = dir.resolve("other-order").toString();

    Result r = inProcess(new PruneJoinJob(), "--location", location, "--input", orders, "--keys", "id,region",
        "--join-with", customers, "--output", joined);

    assertRefused("prune-join: error: --join-with " + customers + ": key column 1 (id) is the filter's key column 2",
        r);
    assertFalse(Files.exists(Path.of(joined)));
  }

  @Test
  void joinKeysNamingTheFiltersColumnsInAnotherOrderAreRefused() {
    String joined = dir.resolve("other-join-order").toString();

    Result r = inProcess(new PruneJoinJob(), "--location", location, "--input", orders, "--keys", "id,region",
        "--join-with", customers, "--join-keys", "ID,Region", "--output", joined);

    assertRefused("prune-join: error: --join-with " + customers + ": key column 1 (ID) is the filter's key column 2",
        r);
    assertFalse(Files.exists(Path.of(joined)));
  }
}
