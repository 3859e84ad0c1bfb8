package dev.cuckoofilter.examples;

import dev.cuckoofilter.spark.CuckooFilters;
import dev.cuckoofilter.spark.SparkCuckooFilter;
import dev.cuckoofilter.spark.store.FilterMetadata;
import dev.cuckoofilter.spark.store.FilterStore;
import java.io.IOException;
import java.nio.file.Path;
import org.apache.spark.sql.SparkSession;

/** The test JVM's own Spark session: writes the test data and computes the expected results. */
public final class TestSpark {
  private TestSpark() {}

  /** A local session on the loopback interface, without UI, with few shuffle partitions. */
  public static SparkSession session() {
    return SparkSession.builder()
        .master("local[2]")
        .appName("examples-tests")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.sql.session.timeZone", "UTC")
        .getOrCreate();
  }

  /**
   * Writes the jobs' small test dataset as Parquet: 500 customers {@code (id, name)} at {@code dir/customers}
   * and 2,000 orders {@code (order_id, customer_id)} at {@code dir/orders}, half of whose customers exist.
   */
  public static void writeCustomersAndOrders(SparkSession spark, Path dir) {
    spark.range(0, 500).selectExpr("id", "concat('c-', id) AS name").write().parquet(dir.resolve("customers").toString());
    spark.range(0, 2000).selectExpr("id AS order_id", "id % 1000 AS customer_id").write()
        .parquet(dir.resolve("orders").toString());
  }

  /** Publishes version 1 at {@code location}: a filter of the ids of the customers at {@code customers}. */
  public static FilterStore publishCustomerIds(SparkSession spark, String customers, String location)
      throws IOException {
    FilterStore store = FilterStore.open(location, spark);
    SparkCuckooFilter built = CuckooFilters.builder(spark.read().parquet(customers)).keys("id").expectedItems(1000)
        .build();
    store.publish(built.filter(), FilterMetadata.of(built.filter(), built.keyFields(), "customers",
        FilterMetadata.NO_PARENT));
    return store;
  }
}
