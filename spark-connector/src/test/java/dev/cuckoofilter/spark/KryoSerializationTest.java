package dev.cuckoofilter.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoofilter.core.CuckooFilter;
import java.util.List;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** With Kryo and registrationRequired, filters broadcast and collect through the registrator. */
class KryoSerializationTest {
  static SparkSession spark;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.builder("local[2]")
        .config("spark.serializer", "org.apache.spark.serializer.KryoSerializer")
        .config("spark.kryo.registrationRequired", "true")
        .config("spark.kryo.registrator", CuckooKryoRegistrator.class.getName())
        .getOrCreate();
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  @Test
  void broadcastAndCollectWork() {
    CuckooFilter filter = CuckooFilter.create(10_000, 0.001);
    for (long i = 0; i < 10_000; i++) {
      filter.add(i * 3);
    }
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
    Broadcast<CuckooFilter> b = jsc.broadcast(filter);
    long hits = jsc.parallelize(List.of(0L, 3L, 6L, 7L), 2).filter(x -> b.value().mightContain(x)).count();
    assertEquals(3, hits);
    List<CuckooFilter> collected = jsc.parallelize(List.of(1, 2), 2).map(x -> {
      CuckooFilter f = CuckooFilter.create(100, 0.01);
      f.add((long) x);
      return f;
    }).collect();
    assertEquals(2, collected.size());
    assertTrue(collected.get(0).mightContain(1L) && collected.get(1).mightContain(2L));
    // The DataFrame API's broadcast goes through Kryo too.
    SparkCuckooFilter sf = CuckooFilters.build(spark.range(0, 1000).toDF("id"), "id");
    long kept = sf.prune(spark.range(0, 5000).toDF("id"), "id").count();
    assertTrue(kept >= 1000 && kept < 1100, "kept " + kept);
  }
}
