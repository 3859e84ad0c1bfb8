package dev.cuckoofilter.examples.jobs;

import static dev.cuckoofilter.examples.ChildProcess.inProcess;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoofilter.examples.ChildProcess.Result;
import dev.cuckoofilter.examples.common.ExitCodes;
import org.junit.jupiter.api.Test;

/**
 * An --input whose keys are its partition columns is pruned by partition: Spark probes the filter with each
 * partition's values as it chooses the partitions to read, and never with the rows. prune-join reported those
 * probes as rows: "the filter was probed with 565 rows and kept 550" for 2,000 orders of which 1,250 were kept (the
 * 40 partitions, the 25 it kept, probed again, and the 500 customers of --join-with).
 */
class PruneJoinPartitionKeysTest extends ShopDataJobTest {
  @Test
  void anInputPrunedByPartitionSaysSo() throws Exception {
    published("by-partition");
    spark.sql("CREATE TABLE orders_by_customer (order_id BIGINT, customer_id BIGINT) USING parquet "
        + "PARTITIONED BY (customer_id) LOCATION '" + dir.resolve("orders-by-customer").toUri() + "'");
    spark.sql("INSERT INTO orders_by_customer SELECT id, id % 40 * 20 FROM range(0, 2000)"); // 40 customers, 25 known
    spark.read().parquet(customers).createOrReplaceTempView("customers_by_partition");
    String joined = dir.resolve("joined-by-partition").toString();
    try {
      Result r = inProcess(new PruneJoinJob(), "--location", location("by-partition"), "--format", "table",
          "--input", "orders_by_customer", "--keys", "customer_id", "--join-with", "customers_by_partition",
          "--join-keys", "id", "--output", joined);

      assertEquals(ExitCodes.OK, r.exitCode(), r.describe());
      assertEquals(1250, spark.read().parquet(joined).count());
      assertTrue(r.stdout().contains("the key columns are partition columns of --input: Spark probed the filter with "
          + "partition values to choose the partitions to read, not with its rows ("), r.describe());
      assertFalse(r.stdout().contains("rows and kept"), r.describe());
    } finally {
      spark.sql("DROP TABLE orders_by_customer");
    }
  }
}
