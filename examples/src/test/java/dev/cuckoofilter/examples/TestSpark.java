package dev.cuckoofilter.examples;

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
}
