package dev.cuckoofilter.sparkbench;

import java.io.File;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;

/**
 * The benchmark tables, generated once as Parquet: a fact table of 20M rows (about 600 MB) whose
 * {@code dim_key} is uniform over the 10M keys of a dimension table; the dimension's {@code segment}
 * (0-99, uniform) selects 1% or 10% of its keys.
 */
final class BenchData {
  static final long FACT_ROWS = 20_000_000L;
  static final long DIM_ROWS = 10_000_000L;

  private BenchData() {}

  static void ensure(SparkSession spark, String dir, long factRows, long dimRows) {
    String fact = dir + "/fact";
    String dim = dir + "/dim";
    if (!new File(fact, "_SUCCESS").exists()) {
      System.out.printf("generating %s (%,d rows)...%n", fact, factRows);
      spark.range(0, factRows, 1, 16).selectExpr(
          "id AS fact_id",
          "pmod(xxhash64(id, 1), " + dimRows + ") AS dim_key",
          "rand(1) * 1000 AS amount",
          "xxhash64(id, 2) AS attr1",
          "xxhash64(id, 3) AS attr2")
          .write().mode(SaveMode.Overwrite).parquet(fact);
    }
    if (!new File(dim, "_SUCCESS").exists()) {
      System.out.printf("generating %s (%,d rows)...%n", dim, dimRows);
      spark.range(0, dimRows, 1, 8).selectExpr(
          "id AS dim_key",
          "CAST(pmod(xxhash64(id, 7), 100) AS INT) AS segment",
          "concat('customer-', id) AS name",
          "CAST(pmod(id, 50) AS INT) AS region")
          .write().mode(SaveMode.Overwrite).parquet(dim);
    }
  }

  static long sizeOnDisk(String dir) {
    long total = 0;
    File[] files = new File(dir).listFiles();
    if (files != null) {
      for (File f : files) {
        total += f.isDirectory() ? sizeOnDisk(f.getPath()) : f.length();
      }
    }
    return total;
  }
}
