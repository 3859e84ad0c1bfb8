package dev.cuckoofilter.spark;

import static org.junit.jupiter.api.Assertions.*;

import dev.cuckoofilter.core.CuckooFilter;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class SmokeTest {
  static SparkSession spark;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.local();
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  @Test
  void sqlBuildAndProbe() throws Exception {
    spark.range(0, 100_000).createOrReplaceTempView("big");
    spark.range(0, 100_000, 10).createOrReplaceTempView("small");
    byte[] bytes = (byte[]) spark.sql("SELECT cuckoo_filter(id) FROM small").first().get(0);
    CuckooFilter f = CuckooFilter.fromByteArray(bytes);
    assertTrue(f.size() > 9_900 && f.size() <= 10_000, "entries " + f.size());
    for (long i = 0; i < 100_000; i += 10) {
      assertTrue(f.mightContain(i));
    }
    Dataset<Row> pruned = spark.sql("SELECT * FROM big WHERE cuckoo_might_contain((SELECT cuckoo_filter(id) FROM small), id)");
    pruned.explain();
    long n = pruned.count();
    assertTrue(n >= 10_000 && n < 11_000, "rows " + n);
    Row info = spark.sql("SELECT cuckoo_filter_info(cuckoo_filter(id, 20000, 0.001)) FROM small").first();
    System.out.println(info);
    SparkCuckooFilter sf = CuckooFilters.build(spark.table("small"), "id");
    Dataset<Row> p2 = sf.prune(spark.table("big"), "id");
    p2.explain();
    long m = p2.count();
    assertTrue(m >= 10_000 && m < 11_000);
    assertEquals(100_000, sf.rowsIn());
    assertEquals(m, sf.rowsOut());
    assertEquals(10_000, CuckooFilters.join(spark.table("big"), spark.table("small"), List.of("id"), "inner").count());
  }
}
