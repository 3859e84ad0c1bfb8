package dev.cuckoofilter.examples.jobs;

import static dev.cuckoofilter.examples.ChildProcess.inProcess;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.cuckoofilter.examples.ChildProcess.Result;
import dev.cuckoofilter.examples.TestSpark;
import dev.cuckoofilter.examples.common.ExitCodes;
import dev.cuckoofilter.spark.CuckooFilters;
import dev.cuckoofilter.spark.SparkCuckooFilter;
import dev.cuckoofilter.spark.store.FilterMetadata;
import dev.cuckoofilter.spark.store.FilterStore;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * A join result holding two columns of one name cannot be written: prune-join refuses such a join before any work,
 * with exit code 2 and the columns named, instead of failing at the write with exit code 1 once the work is done.
 */
class PruneJoinColumnNamesTest extends SparkJobTest {
  @Test
  void structFieldKeysOfBothSidesAreRefusedBeforeTheJoin() throws Exception {
    String customers = dir.resolve("struct-customers").toString();
    spark.sql("SELECT named_struct('x', id) AS s, concat('c-', id) AS name FROM range(0, 100)").write()
        .parquet(customers);
    String orders = dir.resolve("struct-orders").toString();
    spark.sql("SELECT named_struct('x', id % 200) AS s, id AS order_id FROM range(0, 1000)").write().parquet(orders);
    String location = dir.resolve("filters").resolve("struct").toString();
    SparkCuckooFilter built = CuckooFilters.builder(spark.read().parquet(customers)).keys("s.x").build();
    FilterStore.open(location, spark).publish(built.filter(), FilterMetadata.of(built.filter(), built.keyFields(),
        "customers", FilterMetadata.NO_PARENT));
    String joined = dir.resolve("struct-joined").toString();

    Result r = inProcess(new PruneJoinJob(), "--location", location, "--input", orders, "--keys", "s.x",
        "--join-with", customers, "--join-keys", "s.x", "--output", joined);

    assertRefused("prune-join: error: the join of --input " + orders + " and --join-with " + customers
        + " would have 2 columns named s", r);
    assertFalse(Files.exists(Path.of(joined)));
  }

  /**
   * Key columns whose names differ in case only are one column to Spark (unless spark.sql.caseSensitive): they were
   * joined on equality, keeping both, and the write failed with "[COLUMN_ALREADY_EXISTS]", exit code 1.
   */
  @Test
  void keyColumnsNamedAlikeButForCaseJoinIntoOneColumn() throws Exception {
    String customers = dir.resolve("case-customers").toString();
    spark.sql("SELECT id, concat('c-', id) AS name FROM range(0, 100)").write().parquet(customers);
    String orders = dir.resolve("case-orders").toString();
    spark.sql("SELECT id % 200 AS ID, id AS order_id FROM range(0, 1000)").write().parquet(orders);
    String location = dir.resolve("filters").resolve("case").toString();
    TestSpark.publishCustomerIds(spark, customers, location);
    String joined = dir.resolve("case-joined").toString();

    Result r = inProcess(new PruneJoinJob(), "--location", location, "--input", orders, "--join-with", customers,
        "--output", joined);

    assertEquals(ExitCodes.OK, r.exitCode(), r.describe());
    assertEquals(500, spark.read().parquet(joined).count());
    assertEquals(java.util.List.of("ID", "order_id", "name"), java.util.List.of(spark.read().parquet(joined).columns()));
  }

  @Test
  void otherColumnsOfOneNameOnBothSidesAreRefusedBeforeTheJoin() throws Exception {
    String customers = dir.resolve("customers").toString();
    spark.sql("SELECT id, concat('c-', id) AS name FROM range(0, 100)").write().parquet(customers);
    String orders = dir.resolve("orders").toString();
    spark.sql("SELECT id % 200 AS customer_id, concat('o-', id) AS NAME FROM range(0, 1000)").write().parquet(orders);
    String location = dir.resolve("filters").resolve("ids").toString();
    TestSpark.publishCustomerIds(spark, customers, location);
    String joined = dir.resolve("joined").toString();

    Result r = inProcess(new PruneJoinJob(), "--location", location, "--input", orders, "--keys", "customer_id",
        "--join-with", customers, "--join-keys", "id", "--output", joined);

    assertRefused("prune-join: error: the join of --input " + orders + " and --join-with " + customers
        + " would have 2 columns named NAME and name", r);
    assertFalse(Files.exists(Path.of(joined)));
  }
}
