package dev.cuckoofilter.spark;

import org.apache.spark.sql.SparkSession;

/** Local Spark sessions for tests: loopback only, no UI, few shuffle partitions. */
public final class SparkTestSession {
  private SparkTestSession() {}

  public static SparkSession.Builder builder(String master) {
    return SparkSession.builder()
        .master(master)
        .appName("spark-cuckoo-tests")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.sql.adaptive.enabled", "false")
        .config("spark.sql.extensions", CuckooFilterExtensions.class.getName())
        .config("spark.sql.session.timeZone", "UTC");
  }

  public static SparkSession local() {
    return builder("local[2]").getOrCreate();
  }
}
