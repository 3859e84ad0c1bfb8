package dev.cuckoofilter.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoofilter.core.CuckooFilter;
import java.util.List;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.MapFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Kryo without the connector's registrator: a typed Dataset of filters with Spark's Kryo encoder, and filters
 * collected through {@code spark.serializer=KryoSerializer}. Both once read back a hollow filter (Kryo's
 * FieldSerializer, every field transient) that failed on first use.
 */
class KryoEncoderTest {
  static SparkSession spark;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.builder("local[2]")
        .config("spark.serializer", "org.apache.spark.serializer.KryoSerializer")
        .getOrCreate();
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  @Test
  void aKryoEncodedFilterRoundTripsWithoutTheRegistrator() {
    CuckooFilter filter = CuckooFilter.create(1000, 0.01);
    for (long i = 0; i < 1000; i++) {
      filter.add(i);
    }
    Dataset<CuckooFilter> ds = spark.createDataset(List.of(filter), Encoders.kryo(CuckooFilter.class));
    CuckooFilter back = ds.map((MapFunction<CuckooFilter, CuckooFilter>) f -> f, Encoders.kryo(CuckooFilter.class))
        .collectAsList().get(0);
    assertArrayEquals(filter.toByteArray(), back.toByteArray());
    for (long i = 0; i < 1000; i++) {
      assertTrue(back.mightContain(i));
    }
  }

  @Test
  void filtersCollectedThroughKryoWithoutTheRegistratorAreWhole() {
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
    // Task results go through spark.serializer, also in local mode.
    List<CuckooFilter> collected = jsc.parallelize(List.of(1L, 2L), 2).map(x -> {
      CuckooFilter f = CuckooFilter.create(100, 0.01);
      f.add(x);
      return f;
    }).collect();
    assertTrue(collected.get(0).mightContain(1L) && collected.get(1).mightContain(2L));
  }
}
