package dev.cuckoofilter.examples;

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
}
