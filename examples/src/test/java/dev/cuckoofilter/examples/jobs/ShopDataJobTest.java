package dev.cuckoofilter.examples.jobs;

import dev.cuckoofilter.examples.TestSpark;
import dev.cuckoofilter.spark.store.FilterStore;
import java.io.IOException;
import org.junit.jupiter.api.BeforeAll;

/** {@link SparkJobTest}s over the customers and orders of {@link TestSpark#writeCustomersAndOrders}. */
abstract class ShopDataJobTest extends SparkJobTest {
  static String customers;
  static String orders;

  @BeforeAll
  static void writeShopData() {
    TestSpark.writeCustomersAndOrders(spark, dir);
    customers = dir.resolve("customers").toString();
    orders = dir.resolve("orders").toString();
  }

  /** Version 1 of a location: a filter of the customers' ids. */
  static FilterStore published(String name) throws IOException {
    return TestSpark.publishCustomerIds(spark, customers, location(name));
  }
}
